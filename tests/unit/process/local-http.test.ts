/**
 * `localRequest` (node:http in place of fetch for the engine and health probes) against a real
 * local server: the whole answer with its status and headers, a body sent with its length, and
 * the three ways a call ends without an answer (refused, the timeout, the caller's abort), each
 * described as the engine client and the probes report it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeRequestError, localRequest } from '../../../server/process/local-http.js';
import { freePort } from '../../helpers/ports.js';

let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/echo') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => res.writeHead(201, { 'content-type': 'application/json', 'x-got-length': req.headers['content-length'] ?? '' }).end(JSON.stringify({ method: req.method, key: req.headers['x-api-key'], body: Buffer.concat(chunks).toString('utf8') })));
      return;
    }
    // Headers at once, then a body that never ends: the timeout covers the whole answer.
    if (req.url === '/stall') return void res.writeHead(200).write('partial');
    if (req.url === '/missing') return void res.writeHead(404).end('no such route');
    // A body larger than the reader's limit, with and without a declared length.
    if (req.url === '/big') return void res.writeHead(200, { 'content-length': '5000' }).end('x'.repeat(5000));
    if (req.url === '/big-chunked') {
      res.writeHead(200);
      res.write('y'.repeat(3000));
      return void res.end('y'.repeat(3000));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

it('sends the method, headers and a text body, and reads status, headers and the whole body', async () => {
  const body = JSON.stringify({ prompt: 'ünïcödé' });
  const res = await localRequest(`${base}/echo`, { method: 'POST', headers: { 'X-API-Key': 'k1', 'content-type': 'application/json' }, body, timeoutMs: 5000 });
  expect(res.status).toBe(201);
  expect(res.ok).toBe(true);
  expect(res.header('content-type')).toBe('application/json');
  expect(res.header('x-got-length')).toBe(String(Buffer.byteLength(body)));
  expect(res.header('x-absent')).toBeNull();
  expect(JSON.parse(res.text)).toEqual({ method: 'POST', key: 'k1', body });
});

it('cuts a body off above maxBytes and reports its size (the chat bot reading an output file)', async () => {
  expect(await localRequest(`${base}/big`, { timeoutMs: 5000, maxBytes: 1000 })).toMatchObject({ status: 200, body: null, size: 5000, text: '' });
  const chunked = await localRequest(`${base}/big-chunked`, { timeoutMs: 5000, maxBytes: 4000 });
  expect(chunked.body).toBeNull();
  expect(chunked.size).toBeGreaterThan(4000);
  const whole = await localRequest(`${base}/big`, { timeoutMs: 5000, maxBytes: 5000 });
  expect(whole.body?.length).toBe(5000);
});

it('answers an error status as an answer, not a failure', async () => {
  const res = await localRequest(`${base}/missing`, { timeoutMs: 5000 });
  expect(res).toMatchObject({ status: 404, ok: false, text: 'no such route' });
});

it('fails with the errno when nothing listens', async () => {
  const err = await localRequest(`http://127.0.0.1:${await freePort()}/`, { timeoutMs: 5000 }).catch((e: unknown) => e);
  expect(describeRequestError(err, 5000)).toBe('ECONNREFUSED');
});

it('fails with a timeout when the whole answer does not arrive in time', async () => {
  const err = await localRequest(`${base}/stall`, { timeoutMs: 200 }).catch((e: unknown) => e);
  expect((err as Error).name).toBe('TimeoutError');
  expect(describeRequestError(err, 200)).toBe('no answer within 200 ms');
});

it('ends when the caller aborts', async () => {
  const controller = new AbortController();
  const pending = localRequest(`${base}/stall`, { timeoutMs: 10_000, signal: controller.signal }).catch((e: unknown) => e);
  setTimeout(() => controller.abort(), 50);
  const err = await pending;
  expect((err as Error).name).toBe('AbortError');
  expect(describeRequestError(err, 10_000)).toBe('aborted');
});

/**
 * The health probe against real local HTTP servers: a 2xx answer is healthy, an error status is
 * not, and a web page on the port is another server's (a Studio's sign-in page once took a trial
 * engine's port while the engine booted, and passed for it).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { probeHealth } from '../../../server/process/health-probe.js';

let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/json') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    if (req.url === '/bare') return void res.writeHead(200).end();
    if (req.url === '/page') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Studio · Sign in</title>');
    res.writeHead(503, { 'content-type': 'application/json' }).end('{"status":"loading model"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

it('is healthy on a 2xx answer', async () => {
  expect(await probeHealth(`${base}/json`)).toEqual({ ok: true, error: null });
  expect(await probeHealth(`${base}/bare`)).toEqual({ ok: true, error: null });
});

it('is not healthy on an error status, and says which', async () => {
  expect(await probeHealth(`${base}/loading`)).toEqual({ ok: false, error: 'HTTP 503' });
});

it('does not take a web page on the port for the child', async () => {
  const result = await probeHealth(`${base}/page`);
  expect(result.ok).toBe(false);
  expect(result.error).toMatch(/another server holds this port/);
});

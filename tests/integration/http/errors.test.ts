import express from 'express';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DomainError, type ErrorKind } from '../../../server/domain-error.js';
import { EngineValidationError } from '../../../server/engine/engine-errors.js';
import { createHttpServer } from '../../../server/http/app.js';
import { Authenticator } from '../../../server/http/authenticator.js';
import { HttpError, validate } from '../../../server/http/errors.js';
import { KeyLimiter } from '../../../server/http/key-limiter.js';
import { Maintenance } from '../../../server/http/maintenance.js';
import { SessionSigner } from '../../../server/http/session.js';
import { WsHub } from '../../../server/http/ws-hub.js';
import type { Logger } from '../../../server/logging.js';

const logged: string[] = [];
const logger: Logger = { debug() {}, info() {}, warn() {}, error: (m: string) => logged.push(m) };
let url: string;
let close: () => Promise<void>;

beforeAll(async () => {
  const router = express.Router();
  router.get('/api/boom', () => {
    throw new Error('secret internals');
  });
  router.get('/api/teapot', () => {
    throw new HttpError(418, 'short and stout');
  });
  router.get('/api/domain/:kind', (req) => {
    throw new DomainError(req.params.kind as ErrorKind, `a ${req.params.kind} failure`);
  });
  router.get('/api/relayed/:status', (req) => {
    throw new DomainError('relayed', 'LLM server: context too long', undefined, Number(req.params.status));
  });
  router.get('/api/too-many', () => {
    throw new DomainError('too_many', 'Too many tries', { retry_after: 7 });
  });
  router.get('/api/engine-rejected', () => {
    throw new EngineValidationError({ error: { type: 'prompt_outputs_failed_validation', message: 'Prompt outputs failed validation' }, node_errors: {} });
  });
  router.get('/api/async-boom', async () => {
    await Promise.resolve();
    throw new Error('async internals');
  });
  router.post('/api/items', (req, res) => {
    const body = validate(z.object({ name: z.string(), count: z.number().int().min(1) }), req.body);
    res.json(body);
  });
  const hub = new WsHub(logger);
  const { server } = createHttpServer({
    logger,
    auth: new Authenticator(new SessionSigner(Buffer.alloc(32, 1), () => 'k'), new KeyLimiter()),
    hosts: {},
    maintenance: new Maintenance(),
    hub,
    greeting: () => ({ version: 't', engine: { mode: 'standin', status: 'stopped', restarts: 0, lastError: null, errorLines: [] }, maintenance: false, time_zone: 'Europe/Rome' }),
    routers: [router],
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => {
    hub.close();
    return new Promise((r) => server.close(() => r()));
  };
});
afterAll(async () => close());

const headers = { 'X-API-Key': 'k', 'Content-Type': 'application/json' };

describe('the error middleware', () => {
  it('turns an unexpected error into a generic 500 with a request id, logging the real one', async () => {
    for (const p of ['/api/boom', '/api/async-boom']) {
      const res = await fetch(url + p, { headers });
      expect(res.status).toBe(500);
      const id = res.headers.get('x-request-id')!;
      const body = (await res.json()) as { detail: string };
      expect(body).toEqual({ detail: `Internal server error (request ${id})` });
      expect(JSON.stringify(body)).not.toContain('internals');
      expect(logged.some((l) => l.includes(id))).toBe(true);
    }
  });

  it('maps HttpError to its status and detail', async () => {
    const res = await fetch(`${url}/api/teapot`, { headers });
    expect(res.status).toBe(418);
    expect(await res.json()).toEqual({ detail: 'short and stout' });
  });

  it('maps each kind of domain error to one status, the message as detail', async () => {
    const expected: Record<ErrorKind, number> = {
      invalid: 400,
      rejected: 400,
      forbidden: 403,
      not_found: 404,
      conflict: 409,
      too_large: 413,
      out_of_range: 416,
      too_many: 429,
      unreachable: 500,
      upstream: 500,
      broken: 500,
      failed: 500,
      bad_gateway: 502,
      unavailable: 503,
      no_space: 507,
      relayed: 400,
    };
    for (const [kind, status] of Object.entries(expected)) {
      const res = await fetch(`${url}/api/domain/${kind}`, { headers });
      expect(res.status).toBe(status);
      expect(await res.json()).toEqual({ detail: `a ${kind} failure` });
    }
    // A relayed refusal keeps the outside service's own 4xx; anything else falls back to 400.
    for (const [sent, answered] of [[413, 413], [422, 422], [500, 400]]) {
      const relayed = await fetch(`${url}/api/relayed/${sent}`, { headers });
      expect(relayed.status).toBe(answered);
      expect(await relayed.json()).toEqual({ detail: 'LLM server: context too long' });
    }
    const tooMany = await fetch(`${url}/api/too-many`, { headers });
    expect(tooMany.status).toBe(429);
    expect(await tooMany.json()).toEqual({ retry_after: 7, detail: 'Too many tries' });
    const rejected = await fetch(`${url}/api/engine-rejected`, { headers });
    expect(rejected.status).toBe(400);
    expect(await rejected.json()).toEqual({
      detail: 'Prompt outputs failed validation',
      error: { type: 'prompt_outputs_failed_validation', message: 'Prompt outputs failed validation' },
      node_errors: {},
    });
  });

  it('answers malformed JSON and schema failures with 400 naming the field', async () => {
    const malformed = await fetch(`${url}/api/items`, { method: 'POST', headers, body: '{nope' });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { detail: string }).detail).toMatch(/^Malformed JSON body/);
    const wrong = await fetch(`${url}/api/items`, { method: 'POST', headers, body: JSON.stringify({ name: 'a', count: 0 }) });
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { detail: string }).detail).toMatch(/count/);
    const ok = await fetch(`${url}/api/items`, { method: 'POST', headers, body: JSON.stringify({ name: 'a', count: 2 }) });
    expect(await ok.json()).toEqual({ name: 'a', count: 2 });
  });

  it('answers unknown API paths with 404 {detail} and unknown pages with an HTML 404', async () => {
    const api = await fetch(`${url}/api/nothing/here`, { headers, method: 'DELETE' });
    expect(api.status).toBe(404);
    expect(await api.json()).toEqual({ detail: 'Not found: DELETE /api/nothing/here' });
    const page = await fetch(`${url}/nowhere`, { headers });
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toContain('text/html');
  });
});

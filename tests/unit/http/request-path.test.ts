/**
 * Pieces of the request path made cheaper for the history page (issue 29) that must still behave
 * as before: one id per request, API key checks that follow a key change at once.
 */
import express from 'express';
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getRequestId, requestId } from '../../../server/http/request-id.js';
import { SessionSigner } from '../../../server/http/session.js';

let server: http.Server;
let base: string;

beforeAll(async () => {
  const app = express();
  app.set('etag', false);
  app.use(requestId());
  app.get('/id', (req, res) => void res.json({ id: getRequestId(req) }));
  server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('requestId', () => {
  it('gives each request its own id, in the header and to the code that logs', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${base}/id`);
      const id = res.headers.get('x-request-id')!;
      expect(((await res.json()) as { id: string }).id).toBe(id);
      expect(id).toMatch(/^[0-9a-f]{12,}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(20);
  });
});

describe('SessionSigner key checks', () => {
  it('follows a key change at once: the old key and its cookies stop working, the new key works', () => {
    let key = 'first-key-0123456789';
    const signer = new SessionSigner(crypto.randomBytes(32), () => key);
    expect(signer.checkKey('first-key-0123456789')).toBe(true);
    const cookie = signer.issue();
    expect(signer.verify(cookie)).not.toBeNull();

    key = 'second-key-987654321';
    expect(signer.checkKey('first-key-0123456789')).toBe(false);
    expect(signer.verify(cookie)).toBeNull();
    expect(signer.checkKey('second-key-987654321')).toBe(true);
    expect(signer.verify(signer.issue())).not.toBeNull();
    // And back: the first key is the key again.
    key = 'first-key-0123456789';
    expect(signer.checkKey('first-key-0123456789')).toBe(true);
    expect(signer.checkKey('second-key-987654321')).toBe(false);
  });

  it('refuses near misses of the key: another key of the same length, a prefix, a longer one, empty', () => {
    const signer = new SessionSigner(crypto.randomBytes(32), () => 'the-key-0123456789');
    for (const wrong of ['the-key-0123456788', 'the-key-012345678', 'the-key-01234567890', 'THE-KEY-0123456789', '', ' the-key-0123456789']) {
      expect(signer.checkKey(wrong)).toBe(false);
    }
    expect(signer.checkKey(undefined)).toBe(false);
    expect(signer.checkKey('the-key-0123456789')).toBe(true);
  });
});

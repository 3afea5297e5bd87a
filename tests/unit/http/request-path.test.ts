/**
 * Pieces of the request path made cheaper for the history page (issue 29) that must still behave
 * as before: JSON text sent like `res.json`, one id per request, API key checks that follow a key
 * change at once, and requests built with Express's prototypes.
 */
import express from 'express';
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expressMessages } from '../../../server/http/express-messages.js';
import { sendJsonText } from '../../../server/http/json-text.js';
import { getRequestId, requestId } from '../../../server/http/request-id.js';
import { SessionSigner } from '../../../server/http/session.js';

let server: http.Server;
let base: string;
const value = [{ name: 'ünïcode ✓ 😀', text: '"quoted" \\ </script>\n', n: 1.5, list: [null, true] }];

beforeAll(async () => {
  const app = express();
  app.set('etag', false);
  app.use(requestId());
  app.get('/json', (_req, res) => void res.json(value));
  app.get('/text', (req, res) => sendJsonText(req, res, JSON.stringify(value)));
  app.get('/id', (req, res) => void res.json({ id: getRequestId(req) }));
  server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Status, the headers a client reads, and the body bytes. */
async function reply(pathname: string, init: RequestInit = {}) {
  const res = await fetch(base + pathname, init);
  const h = res.headers;
  return { status: res.status, type: h.get('content-type'), length: h.get('content-length'), chunked: h.get('transfer-encoding'), body: Buffer.from(await res.arrayBuffer()) };
}

describe('sendJsonText', () => {
  it('answers GET and HEAD exactly as res.json does for the same value', async () => {
    for (const method of ['GET', 'HEAD']) {
      const text = await reply('/text', { method });
      expect(text).toEqual(await reply('/json', { method }));
      expect(text.type).toBe('application/json; charset=utf-8');
      expect(Number(text.length)).toBe(Buffer.byteLength(JSON.stringify(value)));
      expect(text.body.length).toBe(method === 'HEAD' ? 0 : Number(text.length));
    }
    expect(JSON.parse((await reply('/text')).body.toString('utf8'))).toEqual(value);
  });
});

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

describe('expressMessages', () => {
  it('has Node build requests and responses with the app’s prototypes, so Express has none to set', async () => {
    const app = express();
    app.get('/q', (req, res) => void res.json({ path: req.path, query: req.query, secure: req.secure }));
    const own = http.createServer(expressMessages(app), app);
    const before: boolean[] = [];
    // Runs before Express sees the request.
    own.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      before.push(Object.getPrototypeOf(req) === app.request && Object.getPrototypeOf(res) === app.response);
    });
    await new Promise<void>((resolve) => own.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(own.address() as AddressInfo).port}`;
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${url}/q?a=${i}`);
        expect(await res.json()).toEqual({ path: '/q', query: { a: String(i) }, secure: false });
      }
      expect((await fetch(`${url}/none`)).status).toBe(404);
      expect(before).toEqual([true, true, true, true]);
    } finally {
      await new Promise<void>((resolve) => own.close(() => resolve()));
    }
  });
});

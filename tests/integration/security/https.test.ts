/**
 * Optional HTTPS: with STUDIO_TLS_CERT and STUDIO_TLS_KEY Studio serves HTTPS and WSS, and the
 * session cookie is Secure for every host name (a LAN name included).
 */
import https from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { makeTestCert, type TestCert } from '../../helpers/tls-cert.js';

let t: TestStudio;
let tls: TestCert;

beforeAll(async () => {
  tls = makeTestCert();
  t = await startTestStudio({
    env: { ...tls.env, STUDIO_ALLOWED_HOSTS: 'studio.lan' },
  });
});
afterAll(async () => {
  await t.stop();
  tls.remove();
});

function post(pathname: string, body: string, headers: Record<string, string>): Promise<{ status: number; cookie: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = https.request(`${t.url}${pathname}`, { method: 'POST', rejectUnauthorized: false, headers }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, cookie: (res.headers['set-cookie'] ?? []).find((c) => c.startsWith('session=')) });
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('HTTPS', () => {
  it('serves over TLS and makes the cookie Secure even for a LAN name', async () => {
    expect(t.url).toMatch(/^https:/);
    const res = await post('/api/auth/login', JSON.stringify({ api_key: t.apiKey }), { 'Content-Type': 'application/json', Host: 'studio.lan:8443' });
    expect(res.status).toBe(200);
    expect(res.cookie).toContain('Secure');
  });

  it('accepts WSS with the key', async () => {
    const status = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`${t.url.replace('https', 'wss')}/ws`, { headers: { 'X-API-Key': t.apiKey }, rejectUnauthorized: false });
      ws.on('open', () => {
        ws.close();
        resolve(101);
      });
      ws.on('unexpected-response', (_req, r) => resolve(r.statusCode ?? 0));
      ws.on('error', () => resolve(-1));
    });
    expect(status).toBe(101);
  });

  it('delivers broadcasts over WSS: text and binary frames written once for all clients go through TLS', async () => {
    const ws = new WebSocket(`${t.url.replace('https', 'wss')}/ws`, { headers: { 'X-API-Key': t.apiKey }, rejectUnauthorized: false });
    const got: Array<{ data: Buffer; binary: boolean }> = [];
    ws.on('message', (data: Buffer, binary: boolean) => got.push({ data, binary }));
    await new Promise((resolve, reject) => ws.on('open', resolve).on('error', reject));
    const event = { id: 'evt_tls', timestamp: '', type: 'test', severity: 'info' as const, message: 'over TLS', data: {} };
    t.studio.hub.broadcast('event', event);
    t.studio.hub.broadcastBinary(undefined, Buffer.from([1, 2, 3]));
    const end = Date.now() + 5000;
    while (!got.some((m) => m.binary) && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    ws.close();
    expect(got.filter((m) => !m.binary).map((m) => JSON.parse(m.data.toString('utf8')) as unknown)).toContainEqual({ type: 'event', data: event });
    expect(got.filter((m) => m.binary).map((m) => [...m.data])).toEqual([[1, 2, 3]]);
  });
});

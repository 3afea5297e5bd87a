/**
 * The engine's API on a port of its own, with Studio on HTTPS (STUDIO_TLS_CERT/KEY): the door's
 * port speaks TLS too, with Studio's certificate — its HTTP routes at the root and its socket as
 * `wss://…/ws` — and still asks for a key (401 without one).
 */
import https from 'node:https';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { freePort } from '../../helpers/ports.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { makeTestCert, type TestCert } from '../../helpers/tls-cert.js';

let t: TestStudio;
let cert: TestCert;
let doorPort: number;

beforeAll(async () => {
  cert = makeTestCert();
  doorPort = await freePort();
  t = await startTestStudio({
    env: { ...cert.env, COMFY_API: 'on', COMFY_API_PORT: String(doorPort) },
  });
});
afterAll(async () => {
  await t?.stop();
  cert?.remove();
});

function get(pathname: string, headers: Record<string, string>): Promise<{ status: number; body: string; cert: tls.PeerCertificate }> {
  return new Promise((resolve, reject) => {
    const req = https.get(`https://127.0.0.1:${doorPort}${pathname}`, { rejectUnauthorized: false, headers }, (res) => {
      const cert = (res.socket as tls.TLSSocket).getPeerCertificate();
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, cert }));
    });
    req.on('error', reject);
  });
}

describe("the engine's API on its own port, with Studio on HTTPS", () => {
  it('serves its routes over TLS with the key, and refuses without one', async () => {
    const res = await get('/queue', { 'X-API-Key': t.apiKey });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ queue_running: [], queue_pending: [] });
    expect(res.cert.subject.CN).toBe('studio.lan');
    expect((await get('/queue', {})).status).toBe(401);
  });

  it('accepts its socket as wss:// at the root and greets with the engine status', async () => {
    const first = await new Promise<unknown>((resolve, reject) => {
      const ws = new WebSocket(`wss://127.0.0.1:${doorPort}/ws?clientId=tls-test`, { headers: { 'X-API-Key': t.apiKey }, rejectUnauthorized: false });
      ws.once('message', (data) => {
        ws.close();
        resolve(JSON.parse(String(data)));
      });
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, r) => reject(new Error(`HTTP ${r.statusCode}`)));
    });
    expect(first).toMatchObject({ type: 'status', data: { sid: 'tls-test' } });
  });

  it('does not answer plain HTTP on that port', async () => {
    const plain = await fetch(`http://127.0.0.1:${doorPort}/queue`, { headers: { 'X-API-Key': t.apiKey } }).then((r) => r.status, () => 'refused');
    expect(plain).not.toBe(200);
  });
});

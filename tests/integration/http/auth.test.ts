import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { SessionSigner } from '../../../server/http/session.js';
import { rawRequest, sessionSetCookie } from '../../helpers/http.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let t: TestStudio;

beforeAll(async () => {
  t = await startTestStudio({ env: { STUDIO_ALLOWED_HOSTS: 'studio.lan' } });
});
afterAll(async () => {
  await t.stop();
});

function login(body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${t.url}/api/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

function payloadOf(cookie: string): { iat: number; exp: number } {
  const value = cookie.split(';')[0]!.slice('session='.length);
  return JSON.parse(Buffer.from(value.split('.')[0]!, 'base64url').toString('utf8')) as { iat: number; exp: number };
}

function signerWithClock(now: () => number): SessionSigner {
  const secret = fs.readFileSync(path.join(t.dir, '.session_secret'));
  return new SessionSigner(secret, () => t.apiKey, now);
}

describe('login', () => {
  it('accepts the right key: 200 {status, redirect} and a session cookie with the spec attributes', async () => {
    const res = await login({ api_key: t.apiKey, next: '/queue?tab=1' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', redirect: '/queue?tab=1' });
    const cookie = sessionSetCookie(res.headers)!;
    expect(cookie).toMatch(/^session=[\w-]+\.[\w-]+;/);
    for (const attr of ['HttpOnly', 'SameSite=Strict', 'Path=/', 'Max-Age=86400', 'Secure']) expect(cookie).toContain(attr);
  });

  it('defaults the redirect to /home and refuses off-site redirects', async () => {
    expect((await (await login({ api_key: t.apiKey })).json()) as object).toMatchObject({ redirect: '/home' });
    expect((await (await login({ api_key: t.apiKey, next: '//evil.example/x' })).json()) as object).toMatchObject({ redirect: '/home' });
    expect((await (await login({ api_key: t.apiKey, next: 'https://evil.example' })).json()) as object).toMatchObject({ redirect: '/home' });
  });

  it('leaves Secure out over plain HTTP to a LAN address, so browsers keep the cookie', async () => {
    const res = await rawRequest(`${t.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Host: 'studio.lan:8000' },
      body: JSON.stringify({ api_key: t.apiKey }),
    });
    expect(res.status).toBe(200);
    const cookie = sessionSetCookie(res.headers)!;
    expect(cookie).toContain('HttpOnly');
    expect(cookie).not.toContain('Secure');
  });

  it('answers a wrong key with 401 {detail} and no cookie', async () => {
    const res = await login({ api_key: 'wrong' });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ detail: 'Invalid API key' });
    expect(sessionSetCookie(res.headers)).toBeUndefined();
  });

  it('names the field when the body fails its schema, and rejects malformed JSON', async () => {
    const bad = await login({ key: t.apiKey });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { detail: string }).detail).toContain('api_key');
    const malformed = await fetch(`${t.url}/api/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"api_key":' });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { detail: string }).detail).toMatch(/Malformed JSON/);
  });
});

describe('sessions', () => {
  it('lets a signed-in browser in and renews the cookie on every request (sliding expiry)', async () => {
    const cookie = await t.login();
    const first = payloadOf(cookie);
    await new Promise((r) => setTimeout(r, 5));
    const res = await fetch(`${t.url}/api/admin/events`, { headers: { Cookie: cookie } });
    expect(res.status).toBe(200);
    const renewed = sessionSetCookie(res.headers)!;
    expect(renewed).toContain('Max-Age=86400');
    expect(payloadOf(renewed).exp).toBeGreaterThan(first.exp);
  });

  it('refuses a tampered cookie', async () => {
    const cookie = await t.login();
    const [body, sig] = cookie.slice('session='.length).split('.');
    const payload = JSON.parse(Buffer.from(body!, 'base64url').toString('utf8')) as { exp: number };
    payload.exp += 10 * 86_400_000;
    const forged = `session=${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${sig}`;
    const res = await fetch(`${t.url}/api/admin/events`, { headers: { Cookie: forged } });
    expect(res.status).toBe(401);
    const badSig = await fetch(`${t.url}/api/admin/events`, { headers: { Cookie: `${cookie.slice(0, -2)}xx` } });
    expect(badSig.status).toBe(401);
  });

  it('refuses an expired cookie signed with the real secret', async () => {
    const old = signerWithClock(() => Date.now() - 86_401_000).issue();
    const res = await fetch(`${t.url}/api/admin/events`, { headers: { Cookie: `session=${old}` } });
    expect(res.status).toBe(401);
    const fresh = signerWithClock(() => Date.now()).issue();
    expect((await fetch(`${t.url}/api/admin/events`, { headers: { Cookie: `session=${fresh}` } })).status).toBe(200);
  });

  it('accepts X-API-Key and refuses a wrong one', async () => {
    expect((await t.api('/api/admin/events')).status).toBe(200);
    const wrong = await fetch(`${t.url}/api/admin/events`, { headers: { 'X-API-Key': 'nope' } });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { detail: string }).detail).toMatch(/Not authenticated/);
  });

  it('logout redirects to /login and deletes the cookie', async () => {
    const cookie = await t.login();
    const res = await fetch(`${t.url}/api/auth/logout`, { method: 'POST', headers: { Cookie: cookie }, redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/login');
    const setCookies = res.headers.getSetCookie();
    expect(setCookies).toHaveLength(1);
    expect(setCookies[0]).toMatch(/^session=;.*Max-Age=0/);
  });
});

describe('public paths and redirects', () => {
  it('serves the login page, health and static paths without auth', async () => {
    const page = await fetch(`${t.url}/login`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('API key');
    const health = await fetch(`${t.url}/api/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });
    const asset = await fetch(`${t.url}/static/nothing.js`, { redirect: 'manual' });
    expect(asset.status).toBe(404);
  });

  it('answers unauthenticated API calls with 401 {detail} and pages with a redirect to /login?next=', async () => {
    const api = await fetch(`${t.url}/api/admin/events`);
    expect(api.status).toBe(401);
    expect(Object.keys((await api.json()) as object)).toEqual(['detail']);
    const pageRes = await fetch(`${t.url}/queue?tab=history`, { redirect: 'manual' });
    expect(pageRes.status).toBe(302);
    expect(pageRes.headers.get('location')).toBe(`/login?next=${encodeURIComponent('/queue?tab=history')}`);
  });

  it('answers an unknown /api path with 404 {detail}', async () => {
    const res = await t.api('/api/no/such/thing');
    expect(res.status).toBe(404);
    expect(((await res.json()) as { detail: string }).detail).toContain('/api/no/such/thing');
  });
});

describe('the WebSocket handshake', () => {
  function open(headers: Record<string, string>): Promise<{ status: number; hello?: unknown }> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`${t.url.replace('http', 'ws')}/ws`, { headers });
      ws.on('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0 }));
      ws.on('message', (data: Buffer) => {
        resolve({ status: 101, hello: JSON.parse(data.toString('utf8')) });
        ws.close();
      });
      ws.on('error', (err) => {
        if (!/Unexpected server response/.test(err.message)) reject(err);
      });
    });
  }

  it('refuses an unauthenticated client with 401 before the upgrade', async () => {
    expect((await open({})).status).toBe(401);
    expect((await open({ Cookie: 'session=abc.def' })).status).toBe(401);
  });

  it('accepts a session cookie or the API key and greets with hello', async () => {
    const cookie = await t.login();
    const viaCookie = await open({ Cookie: cookie });
    expect(viaCookie.status).toBe(101);
    expect(viaCookie.hello).toMatchObject({ type: 'hello', data: { version: expect.any(String) as string } });
    expect((await open({ 'X-API-Key': t.apiKey })).status).toBe(101);
  });
});

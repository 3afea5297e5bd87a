/**
 * Attacks from a web page the user merely visits: DNS rebinding (a foreign Host), cross-site
 * requests and WebSockets carrying a valid cookie, brute force of the API key, an off-site
 * `next` after sign-in. Each test is written as the attack.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startStandinEngine } from '../../../server/standin/standin.server.js';
import { SessionSigner, SESSION_LIFETIME_MS } from '../../../server/http/session.js';
import { rawRequest, sessionSetCookie } from '../../helpers/http.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let t: TestStudio;
let cookie: string;

beforeAll(async () => {
  t = await startTestStudio({ env: { STUDIO_ALLOWED_HOSTS: 'studio.lan,*.home.arpa' } });
  cookie = await t.login();
});
afterAll(async () => t.stop());

const port = () => new URL(t.url).port;

function wsOpen(headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${t.url.replace('http', 'ws')}/ws`, { headers });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('open', () => {
      resolve(101);
      ws.close();
    });
    ws.on('error', (err) => {
      if (!/Unexpected server response/.test(err.message)) reject(err);
    });
  });
}

describe('DNS rebinding: a foreign Host is refused everywhere', () => {
  it('refuses API, public and page paths with 421, JSON for the API and text for pages', async () => {
    const host = `attacker.example:${port()}`;
    const api = await rawRequest(`${t.url}/api/admin/events`, { headers: { Host: host, 'X-API-Key': t.apiKey } });
    expect(api.status).toBe(421);
    expect(JSON.parse(api.body)).toEqual({ detail: expect.stringMatching(/Host/) as string });
    const health = await rawRequest(`${t.url}/api/health`, { headers: { Host: host } });
    expect(health.status).toBe(421);
    const login = await rawRequest(`${t.url}/api/auth/login`, {
      method: 'POST',
      headers: { Host: host, 'Content-Type': 'application/json' },
      body: JSON.stringify({ api_key: t.apiKey }),
    });
    expect(login.status).toBe(421);
    expect(sessionSetCookie(login.headers)).toBeUndefined();
    const page = await rawRequest(`${t.url}/login`, { headers: { Host: host } });
    expect(page.status).toBe(421);
    expect(page.headers['content-type']).toContain('text/plain');
  });

  it('refuses the WebSocket upgrade, even with a valid cookie', async () => {
    expect(await wsOpen({ Host: `attacker.example:${port()}`, Cookie: cookie })).toBe(421);
  });

  it('serves loopback names, listed names and sub-names', async () => {
    for (const host of [`127.0.0.1:${port()}`, `localhost:${port()}`, `studio.lan:${port()}`, `box.home.arpa:${port()}`, `[::1]:${port()}`]) {
      expect((await rawRequest(`${t.url}/api/health`, { headers: { Host: host } })).status, host).toBe(200);
    }
    expect((await rawRequest(`${t.url}/api/health`, { headers: { Host: `studio.lan.attacker.example:${port()}` } })).status).toBe(421);
  });

  it('applies the same rule in the stand-in engine', async () => {
    const dir = fs.mkdtempSync(path.join(t.dir, 'standin-'));
    const engine = await startStandinEngine({ port: 0, inputDir: path.join(dir, 'in'), outputDir: path.join(dir, 'out') });
    try {
      expect((await rawRequest(`${engine.url}/system_stats`, { headers: { Host: 'attacker.example' } })).status).toBe(421);
      expect((await rawRequest(`${engine.url}/system_stats`, { headers: { Host: `127.0.0.1:${engine.port}` } })).status).toBe(200);
    } finally {
      await engine.close();
    }
  });
});

describe('cross-site requests carrying a valid cookie', () => {
  it('refuses a cross-origin POST (Origin of another port), and one the browser marks cross-site', async () => {
    const evilOrigin = await fetch(`${t.url}/api/run/execute`, { method: 'POST', headers: { Cookie: cookie, Origin: 'http://127.0.0.1:9999' } });
    expect(evilOrigin.status).toBe(403);
    expect(((await evilOrigin.json()) as { detail: string }).detail).toMatch(/another site/);
    const sameSite = await fetch(`${t.url}/api/history/x`, { method: 'DELETE', headers: { Cookie: cookie, 'Sec-Fetch-Site': 'same-site' } });
    expect(sameSite.status).toBe(403);
    const nullOrigin = await fetch(`${t.url}/api/auth/logout`, { method: 'POST', headers: { Cookie: cookie, Origin: 'null' }, redirect: 'manual' });
    expect(nullOrigin.status).toBe(403);
  });

  it('refuses a cross-origin WebSocket carrying the cookie', async () => {
    expect(await wsOpen({ Cookie: cookie, Origin: 'http://evil.example' })).toBe(403);
    expect(await wsOpen({ Cookie: cookie, Origin: t.url })).toBe(101);
  });

  it('lets same-origin browsers, reads and header-less clients through', async () => {
    const same = await fetch(`${t.url}/api/admin/events`, { headers: { Cookie: cookie, Origin: t.url, 'Sec-Fetch-Site': 'same-origin' } });
    expect(same.status).toBe(200);
    // A GET from elsewhere is not state-changing (and the browser will not let the page read it).
    expect((await fetch(`${t.url}/api/health`, { headers: { 'Sec-Fetch-Site': 'cross-site' } })).status).toBe(200);
    // Scripts and the chat bot send neither header: authentication decides.
    const script = await t.api('/api/admin/events');
    expect(script.status).toBe(200);
  });
});

describe('the login redirect', () => {
  it('keeps only same-origin targets: tabs, backslashes and control characters are refused', async () => {
    const next = async (value: string) =>
      ((await (await fetch(`${t.url}/api/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ api_key: t.apiKey, next: value }) })).json()) as { redirect: string }).redirect;
    expect(await next('/\t/evil.example/x')).toBe('/home');
    expect(await next('/\\evil.example')).toBe('/home');
    expect(await next('/%0d%0aLocation:x')).toBe('/%0d%0aLocation:x');
    expect(await next('/\n/evil.example')).toBe('/home');
    expect(await next('https://evil.example')).toBe('/home');
    expect(await next('/run/abc?x=1#top')).toBe('/run/abc?x=1#top');
  });

  it('never answers a redirect that leaves the origin through dot segments', async () => {
    const next = async (value: string) =>
      ((await (await fetch(`${t.url}/api/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ api_key: t.apiKey, next: value }) })).json()) as { redirect: string }).redirect;
    for (const attack of ['/.//evil.example/x', '/..//evil.example', '/%2e//evil.example', '/a/..//evil.example', '/%2E%2E//evil.example/x?y#z', '/./%2e/.//evil.example']) {
      const redirect = await next(attack);
      // What the browser does with the answer: it must stay on Studio's origin.
      expect(new URL(redirect, 'http://studio.invalid').origin, `${attack} → ${redirect}`).toBe('http://studio.invalid');
      expect(redirect, attack).toMatch(/^\/(?![/\\])/);
    }
    expect(await next('/a/../run/x')).toBe('/run/x');
  });

  it('accepts at most a few KB on the public login route', async () => {
    const res = await fetch(`${t.url}/api/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ api_key: 'x'.repeat(10_000) }) });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ detail: expect.any(String) as string });
  });
});

describe('pages carry a Content-Security-Policy and the other headers', () => {
  it('sets CSP with script-src self and frame-ancestors none, Referrer-Policy and nosniff', async () => {
    for (const p of ['/login', '/home']) {
      const res = await fetch(`${t.url}${p}`, { headers: { Cookie: cookie } });
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp, p).toMatch(/script-src 'self'/);
      expect(csp, p).toContain("frame-ancestors 'none'");
      expect(res.headers.get('referrer-policy')).toBe('same-origin');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
    // The login page's own inline script is admitted by its hash, nothing else inline.
    const login = await fetch(`${t.url}/login`);
    const html = await login.text();
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
    const { createHash } = await import('node:crypto');
    expect(login.headers.get('content-security-policy')).toContain(`'sha256-${createHash('sha256').update(script).digest('base64')}'`);
  });
});

describe('sessions', () => {
  it('carries no hash of the key: a cookie cannot be checked offline against guesses', async () => {
    const payload = JSON.parse(Buffer.from(cookie.slice('session='.length).split('.')[0]!, 'base64url').toString('utf8')) as Record<string, unknown>;
    const { createHash } = await import('node:crypto');
    const plainHash = createHash('sha256').update(t.apiKey).digest('hex');
    expect(JSON.stringify(payload)).not.toContain(plainHash.slice(0, 12));
    expect(payload).toMatchObject({ sid: expect.any(String) as string, iat: expect.any(Number) as number });
  });

  it('never renews a session past 30 days from sign-in', async () => {
    const secret = fs.readFileSync(path.join(t.dir, '.session_secret'));
    const signedInAt = Date.now() - SESSION_LIFETIME_MS + 60_000;
    // A session signed in 30 days minus a minute ago, renewed ever since.
    const old = new SessionSigner(secret, () => t.apiKey).renew({ sid: 'long-lived', iat: signedInAt, exp: 0, k: '' });
    // Still valid for a minute; renewal must not push the expiry past the 30 days.
    const res = await fetch(`${t.url}/api/admin/events`, { headers: { Cookie: `session=${old}` } });
    expect(res.status).toBe(200);
    const renewed = sessionSetCookie(res.headers)!;
    const maxAge = Number(/Max-Age=(\d+)/.exec(renewed)![1]);
    expect(maxAge).toBeLessThanOrEqual(60);
    const tooOld = new SessionSigner(secret, () => t.apiKey, () => Date.now() + 3_600_000).renew({ sid: 'older', iat: Date.now() - SESSION_LIFETIME_MS - 1000, exp: 0, k: '' });
    expect((await fetch(`${t.url}/api/admin/events`, { headers: { Cookie: `session=${tooOld}` } })).status).toBe(401);
  });

  it('logout revokes the session server-side: a stolen copy of the cookie stops working', async () => {
    const mine = await t.login();
    const stolen = mine;
    expect((await fetch(`${t.url}/api/admin/events`, { headers: { Cookie: stolen } })).status).toBe(200);
    const out = await fetch(`${t.url}/api/auth/logout`, { method: 'POST', headers: { Cookie: mine }, redirect: 'manual' });
    expect(out.status).toBe(302);
    expect((await fetch(`${t.url}/api/admin/events`, { headers: { Cookie: stolen } })).status).toBe(401);
    // Other sessions are untouched.
    expect((await fetch(`${t.url}/api/admin/events`, { headers: { Cookie: cookie } })).status).toBe(200);
  });
});

/**
 * A WebSocket lives only as long as the session that opened it: after logout (revocation) or past
 * the session's expiry, a socket opened with the cookie must stop receiving events, job progress
 * and previews. Written as the attack: a copied cookie's socket kept open after the owner signed out.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { SESSION_MAX_AGE_S, SessionSigner } from '../../../server/http/session.js';
import { SESSION_ENDED_CODE } from '../../../server/http/ws-hub.js';
import { until } from '../../helpers/studio-ws.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let t: TestStudio;
beforeAll(async () => {
  t = await startTestStudio();
});
afterAll(async () => t.stop());

interface Watched {
  ws: WebSocket;
  types: string[];
  closed: { code: number } | null;
}

function openWith(cookie: string): Promise<Watched> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${t.url.replace('http', 'ws')}/ws`, { headers: { Cookie: cookie } });
    const watched: Watched = { ws, types: [], closed: null };
    ws.on('message', (data: Buffer) => watched.types.push((JSON.parse(data.toString('utf8')) as { type: string; data: { message?: string } }).type));
    ws.on('close', (code) => (watched.closed = { code }));
    ws.on('open', () => resolve(watched));
    ws.on('error', reject);
  });
}

/** A cookie for a session signed in long enough ago that it expires `inMs` from now. */
function cookieExpiringIn(inMs: number): string {
  const secret = fs.readFileSync(path.join(t.dir, '.session_secret'));
  const signedIn = () => Date.now() - SESSION_MAX_AGE_S * 1000 + inMs;
  return `session=${new SessionSigner(secret, () => t.apiKey, signedIn).issue()}`;
}

describe('a WebSocket ends with its session', () => {
  it('closes the sockets a session opened when it logs out, and only those', async () => {
    const victim = await t.login();
    const other = await t.login();
    const stolen = await openWith(victim);
    const second = await openWith(victim);
    const bystander = await openWith(other);
    const out = await fetch(`${t.url}/api/auth/logout`, { method: 'POST', headers: { Cookie: victim }, redirect: 'manual' });
    expect(out.status).toBe(302);
    await until(() => stolen.closed && second.closed, 'sockets of the signed-out session closed');
    expect(stolen.closed!.code).toBe(SESSION_ENDED_CODE);
    expect(second.closed!.code).toBe(SESSION_ENDED_CODE);
    t.studio.events.emit('job.queued', 'info', 'after logout', { prompt_id: 'p-after-logout' });
    await until(() => bystander.types.includes('event'), 'the other session still receives events');
    expect(bystander.ws.readyState).toBe(WebSocket.OPEN);
    expect(stolen.types).not.toContain('event');
    // The copied cookie cannot open a new one either.
    await expect(openWith(victim)).rejects.toThrow(/401/);
    bystander.ws.close();
  });

  it('closes a socket when its session expires, and follows renewals made over HTTP', async () => {
    const expiring = await openWith(cookieExpiringIn(1500));
    const renewedCookie = cookieExpiringIn(1500);
    const renewed = await openWith(renewedCookie);
    // The browser keeps using Studio: each request slides the session's expiry.
    expect((await fetch(`${t.url}/api/admin/events?limit=1`, { headers: { Cookie: renewedCookie } })).status).toBe(200);
    await until(() => expiring.closed, 'the expired session\'s socket closed');
    expect(expiring.closed!.code).toBe(SESSION_ENDED_CODE);
    // Past the renewed cookie's original expiry too (it was made a few ms later).
    await new Promise((r) => setTimeout(r, 500));
    t.studio.events.emit('job.queued', 'info', 'after expiry', { prompt_id: 'p-after-expiry' });
    await until(() => renewed.types.includes('event'), 'the renewed session\'s socket still receives events');
    expect(renewed.closed).toBeNull();
    expect(expiring.types).not.toContain('event');
    renewed.ws.close();
  });

  it('keeps sockets opened with the API key (they end when the key changes)', async () => {
    const keyed = await new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(`${t.url.replace('http', 'ws')}/ws`, { headers: { 'X-API-Key': t.apiKey } });
      ws.on('open', () => resolve(ws));
      ws.on('error', reject);
    });
    const cookie = await t.login();
    await fetch(`${t.url}/api/auth/logout`, { method: 'POST', headers: { Cookie: cookie }, redirect: 'manual' });
    expect(keyed.readyState).toBe(WebSocket.OPEN);
    keyed.close();
  });
});

/**
 * Nobody may lock the owner out: wrong keys from many addresses (no key needed to send them) must
 * not make the right key fail for a client that has not failed itself, and Studio's own chat bot
 * never meets the public key check. Guessers stay throttled. Written as the attack: 10 wrong keys
 * from each of 11 loopback addresses (127.0.0.0/8 is all this machine's), then the owner.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startFakeChatPlatform, type FakeChatPlatform } from '../../helpers/fake-chat-platform.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

const OWNER_CHAT = 5151;
let platform: FakeChatPlatform;
let t: TestStudio;

beforeAll(async () => {
  platform = await startFakeChatPlatform();
  t = await startTestStudio({ env: { CHATBOT_BOT_TOKEN: platform.token, CHATBOT_API_BASE_URL: platform.url } });
  const preset = { id: 'sunset', name: 'Sunset', workflow: { workflow_id: 'image-filter', params: {} } };
  expect((await t.api('/api/admin/presets', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(preset) })).status).toBe(200);
  platform.sendText(OWNER_CHAT, `/key ${t.apiKey}`);
  await platform.waitFor(() => platform.callsOf('sendMessage').some((c) => /may now use the bot/.test(String(c.params.text))));
}, 30_000);
afterAll(async () => {
  await t?.stop();
  await platform?.close();
});

/** One request from a chosen source address. */
function from(address: string, pathname: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<number> {
  const url = new URL(t.url + pathname);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method: init.method ?? 'GET', headers: init.headers, localAddress: address }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

function handshakeFrom(address: string, key: string): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${t.url.replace('http', 'ws')}/ws`, { headers: { 'X-API-Key': key }, localAddress: address });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('open', () => {
      ws.close();
      resolve(101);
    });
    ws.on('error', () => {});
  });
}

const json = { 'Content-Type': 'application/json' };

describe('a flood of wrong keys from many addresses', () => {
  it('leaves the owner, new sign-ins, the reveal route, the WebSocket and the chat bot working; guessers stay throttled', async () => {
    // The attack, including the bot's own address (127.0.0.1).
    const statuses: number[] = [];
    for (let host = 1; host <= 12; host++) {
      for (let i = 0; i < 10; i++) statuses.push(await from(`127.0.0.${host}`, '/api/admin/events', { headers: { 'X-API-Key': `guess-${host}-${i}` } }));
    }
    // 100 wrong answers; past the global ceiling each new address gets one, then waits.
    expect(statuses.slice(0, 100)).toEqual(Array(100).fill(401));
    expect(statuses.slice(100)).toEqual([401, ...Array(9).fill(429), 401, ...Array(9).fill(429)]);
    // Each guessing address is held back, even with the right key.
    expect(await from('127.0.0.5', '/api/admin/events', { headers: { 'X-API-Key': t.apiKey } })).toBe(429);
    // A new guesser gets its one wrong answer, then waits: the global ceiling applies to it.
    expect(await from('127.0.0.30', '/api/admin/events', { headers: { 'X-API-Key': 'guess-new' } })).toBe(401);
    expect(await from('127.0.0.30', '/api/admin/events', { headers: { 'X-API-Key': t.apiKey } })).toBe(429);

    // The owner, from an address that never failed.
    const owner = '127.0.0.40';
    expect(await from(owner, '/api/admin/events', { headers: { 'X-API-Key': t.apiKey } })).toBe(200);
    expect(await from(owner, '/api/auth/login', { method: 'POST', headers: json, body: JSON.stringify({ api_key: t.apiKey }) })).toBe(200);
    expect(await from(owner, '/api/admin/settings/reveal', { method: 'POST', headers: { ...json, 'X-API-Key': t.apiKey }, body: JSON.stringify({ api_key: t.apiKey }) })).toBe(200);
    expect(await handshakeFrom(owner, t.apiKey)).toBe(101);
    // A browser extension on another machine that never failed.
    expect(await from('127.0.0.41', '/api/admin/presets', { headers: { 'X-API-Key': t.apiKey } })).toBe(200);

    // The chat bot calls Studio from 127.0.0.1, which is throttled for keys: it must not care.
    platform.sendText(OWNER_CHAT, 'hi');
    await platform.waitFor(() => platform.callsOf('sendMessage').some((c) => Number(c.params.chat_id) === OWNER_CHAT && /Which preset/.test(String(c.params.text))));
    const menu = platform.callsOf('sendMessage').filter((c) => /Which preset/.test(String(c.params.text))).at(-1)!;
    expect(JSON.stringify(menu.params.reply_markup)).toContain('Sunset');
  }, 60_000);

  it('refuses a made-up internal credential', async () => {
    expect(await from('127.0.0.50', '/api/admin/events', { headers: { 'X-Studio-Internal': 'made-up' } })).toBe(401);
  });
});

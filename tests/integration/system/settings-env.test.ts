/**
 * Environment settings and secrets against a real Studio: groups and masking, runtime edits that
 * reach the running services and survive a restart, API key changes that end sessions, and the
 * reveal behind a second key check with the login limiter.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EnvGroup } from '../../../server/contracts/system.contract.js';
import { startFakeHub } from '../../helpers/fake-hub-server.js';
import { startTestStudio, TEST_API_KEY, type TestStudio } from '../../helpers/studio.js';
import { connectStudioWs, until } from '../../helpers/studio-ws.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

const MODELHUB_KEY = 'mhk-1234567890abcdef';
const NEW_KEY = 'a-brand-new-api-key-0001';

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-env-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function studio(env: Record<string, string>, dir?: string): Promise<TestStudio> {
  const t = await startTestStudio({ env, dir });
  cleanups.push(() => t.stop());
  return t;
}

const jsonInit = (method: string, body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method,
  headers: { 'Content-Type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

async function groups(t: TestStudio, key = t.apiKey): Promise<EnvGroup[]> {
  const res = await fetch(`${t.url}/api/admin/settings/env`, { headers: { 'X-API-Key': key } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { groups: EnvGroup[] }).groups;
}

function entry(all: EnvGroup[], key: string) {
  return all.flatMap((g) => g.vars).find((v) => v.key === key);
}

describe('GET /api/admin/settings/env', () => {
  it('lists groups with every entry field and masks secrets as first 4 + *** + last 4', async () => {
    const t = await studio({ MODELHUB_API_KEY: MODELHUB_KEY, CHATBOT_BOT_NAME: 'studio_bot', REPO_URL: 'https://example.invalid/r.git' });
    const res = await t.api('/api/admin/settings/env');
    const text = await res.text();
    expect(text).not.toContain(MODELHUB_KEY);
    expect(text).not.toContain(TEST_API_KEY);
    const all = (JSON.parse(text) as { groups: EnvGroup[] }).groups;
    expect(all[0]).toMatchObject({ id: 'auth', label: 'Authentication & API Tokens' });
    expect(all.map((g) => g.id)).toEqual(['auth', 'config', 'readonly']);
    expect(all[0]!.vars.map((v) => v.key)).toEqual(['API_KEY', 'MODELHUB_API_KEY', 'HUB_TOKEN', 'CHATBOT_BOT_TOKEN', 'CHATBOT_BOT_NAME']);
    expect(entry(all, 'MODELHUB_API_KEY')).toEqual({
      key: 'MODELHUB_API_KEY',
      value: 'mhk-***cdef',
      sensitive: true,
      set: true,
      default: null,
      description: expect.any(String),
      editable: true,
    });
    expect(entry(all, 'API_KEY')).toMatchObject({ value: 'test***6789', sensitive: true, set: true, editable: true });
    expect(entry(all, 'HUB_TOKEN')).toMatchObject({ value: '', set: false, sensitive: true });
    expect(entry(all, 'CHATBOT_BOT_NAME')).toMatchObject({ value: 'studio_bot', sensitive: false, editable: true });
    expect(entry(all, 'REPO_URL')).toMatchObject({ value: 'https://example.invalid/r.git', editable: false, set: true });
    expect(entry(all, 'STUDIO_DIR')).toMatchObject({ value: t.dir, editable: false });
  });

  it('shows the hosting platform group only on that platform, its secrets masked', async () => {
    const t = await studio({ RUNPOD_POD_ID: 'pod-abc', RUNPOD_API_KEY: 'rp-secret-value-123456' });
    const all = await groups(t);
    const platform = all.find((g) => g.id === 'platform');
    expect(platform?.vars.map((v) => v.key)).toEqual(['RUNPOD_API_KEY', 'RUNPOD_POD_ID']);
    expect(entry(all, 'RUNPOD_API_KEY')).toMatchObject({ value: 'rp-s***3456', sensitive: true, editable: false });
    expect(entry(all, 'RUNPOD_POD_ID')).toMatchObject({ value: 'pod-abc', sensitive: false });
  });
});

describe('PUT /api/admin/settings/env', () => {
  it('refuses variables that are not editable, unknown ones and bad values with 400', async () => {
    const t = await studio({});
    for (const [body, pattern] of [
      [{ key: 'STUDIO_PORT', value: '1' }, /STUDIO_PORT is not editable/],
      [{ key: 'NOPE', value: 'x' }, /NOPE is not editable/],
      [{ key: 'HUB_TOKEN' }, /value/],
      [{ value: 'x' }, /key/],
      [{ key: 'API_KEY', value: 'short' }, /API_KEY must be at least 16/],
      [{ key: 'HUB_TOKEN', value: 'two\nlines' }, /one line/],
      // The spec names five editable variables; the update repository has a route of its own.
      [{ key: 'REPO_URL', value: 'https://example.invalid/r.git' }, /REPO_URL is not editable at runtime; editable variables: API_KEY, MODELHUB_API_KEY, HUB_TOKEN, CHATBOT_BOT_TOKEN, CHATBOT_BOT_NAME$/],
    ] as const) {
      const res = await t.api('/api/admin/settings/env', jsonInit('PUT', body));
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as { detail: string }).detail).toMatch(pattern);
    }
  });

  it('sets the update repository on its own route (https only): status names it and its source, the update check uses it', async () => {
    const t = await studio({});
    const before = await t.api('/api/admin/system/remote-version');
    expect(((await before.json()) as { detail: string }).detail).toMatch(/no repository to update from/);
    const route = '/api/admin/system/update-repository';
    for (const [url, pattern] of [
      ['--upload-pack=touch /tmp/x', /not a URL/],
      ['http://example.invalid/r.git', /only https:\/\//],
      ['file:///tmp/r.git', /only https:\/\//],
      ['https://user:secret@example.invalid/r.git', /user name or password/],
    ] as const) {
      const res = await t.api(route, jsonInit('PUT', { url }));
      expect(res.status, url).toBe(400);
      expect(((await res.json()) as { detail: string }).detail).toMatch(pattern);
    }
    expect((await t.api(route, jsonInit('PUT', {}))).status).toBe(400);
    // Nothing listens on port 1: git fails at once, with no network.
    const missing = 'https://127.0.0.1:1/no-such-repo.git';
    const set = await t.api(route, jsonInit('PUT', { url: missing }));
    expect(await set.json()).toEqual({ repo_url: missing, source: 'settings' });
    expect(await (await t.api(route)).json()).toEqual({ repo_url: missing, source: 'settings' });
    expect(await (await t.api('/api/admin/system/status')).json()).toMatchObject({ repo_url: missing, repo_url_source: 'settings' });
    expect(((await (await t.api('/api/admin/system/app-update')).json()) as { git: { repo_configured: boolean } }).git.repo_configured).toBe(true);
    // The check now runs git against the set repository (which does not exist), not the "not set" refusal.
    const after = await t.api('/api/admin/system/remote-version');
    expect(((await after.json()) as { detail: string }).detail).not.toMatch(/no repository to update from/);
  });

  it('applies a token to the running services at once, stores it 0600 and keeps it across a restart', async () => {
    const hub = await startFakeHub();
    cleanups.push(() => hub.close());
    const dir = tempDir();
    let t = await studio({ REPOHOST_BASE_URL: hub.url, MODELHUB_BASE_URL: hub.url }, dir);
    const res = await t.api('/api/admin/settings/env', jsonInit('PUT', { key: 'HUB_TOKEN', value: 'hf_new_token_abcdef' }));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ entry: { key: 'HUB_TOKEN', value: 'hf_n***cdef', set: true } });
    // The repository host client reads the token per request: the next metadata fetch carries it.
    expect((await t.api('/api/admin/models/fetch-metadata', { method: 'POST' })).status).toBe(200);
    await until(() => hub.requests.find((r) => r.url.startsWith('/api/models/') && r.headers.authorization === 'Bearer hf_new_token_abcdef'), 'a request with the new token');
    // The stored token lives in the database (and its WAL until a checkpoint): owner-only files in an owner-only folder.
    for (const file of ['studio.db', 'studio.db-wal']) expect(fs.statSync(path.join(dir, 'db', file)).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.join(dir, 'db')).mode & 0o777).toBe(0o700);
    const events = (await (await t.api('/api/admin/events?types=settings.env.updated')).json()) as Array<{ data: Record<string, unknown>; message: string }>;
    expect(events.at(-1)?.data).toEqual({ key: 'HUB_TOKEN', set: true });
    expect(JSON.stringify(events)).not.toContain('hf_new_token_abcdef');

    await t.stop();
    cleanups.pop();
    t = await studio({}, dir);
    expect(entry(await groups(t), 'HUB_TOKEN')).toMatchObject({ value: 'hf_n***cdef', set: true });
    // Clearing is stored too: the environment's value does not come back on the next boot.
    expect((await t.api('/api/admin/settings/env', jsonInit('PUT', { key: 'HUB_TOKEN', value: '' }))).status).toBe(200);
    expect(entry(await groups(t), 'HUB_TOKEN')).toMatchObject({ value: '', set: false });
  });

  it('changing API_KEY signs every session out; the new key works and survives a restart', async () => {
    const dir = tempDir();
    let t = await studio({}, dir);
    const cookie = await t.login();
    expect((await fetch(`${t.url}/api/admin/settings`, { headers: { Cookie: cookie } })).status).toBe(200);
    const ws = await connectStudioWs(t.url, t.apiKey);
    cleanups.push(() => ws.close());
    const closed = new Promise<number>((resolve) => ws.ws.once('close', (code) => resolve(code)));
    expect((await t.api('/api/admin/settings/env', jsonInit('PUT', { key: 'API_KEY', value: NEW_KEY }))).status).toBe(200);
    // Open sockets signed in under the old key are cut too.
    expect(await closed).toBe(4001);
    expect((await fetch(`${t.url}/api/admin/settings`, { headers: { Cookie: cookie } })).status).toBe(401);
    expect((await t.api('/api/admin/settings')).status).toBe(401);
    expect((await fetch(`${t.url}/api/admin/settings`, { headers: { 'X-API-Key': NEW_KEY } })).status).toBe(200);
    const login = await fetch(`${t.url}/api/auth/login`, jsonInit('POST', { api_key: NEW_KEY }));
    expect(login.status).toBe(200);

    await t.stop();
    cleanups.pop();
    t = await studio({}, dir);
    expect((await fetch(`${t.url}/api/admin/settings`, { headers: { 'X-API-Key': NEW_KEY } })).status).toBe(200);
    expect((await t.api('/api/admin/settings')).status).toBe(401);
  });
});

describe('POST /api/admin/settings/reveal', () => {
  it('returns every secret unmasked for the right key, 403 for a wrong one, and events without values', async () => {
    const t = await studio({ MODELHUB_API_KEY: MODELHUB_KEY });
    const wrong = await t.api('/api/admin/settings/reveal', jsonInit('POST', { api_key: 'not-the-key' }));
    expect(wrong.status).toBe(403);
    expect(await wrong.json()).toEqual({ detail: expect.stringMatching(/does not match/) });
    const missing = await t.api('/api/admin/settings/reveal', jsonInit('POST', {}));
    expect(missing.status).toBe(400);
    const ok = await t.api('/api/admin/settings/reveal', jsonInit('POST', { api_key: TEST_API_KEY }));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ API_KEY: TEST_API_KEY, MODELHUB_API_KEY: MODELHUB_KEY, HUB_TOKEN: '', CHATBOT_BOT_TOKEN: '' });
    const events = (await (await t.api('/api/admin/events?types=settings.*')).json()) as Array<{ type: string; data: Record<string, unknown> }>;
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['settings.reveal.denied', 'settings.revealed']));
    expect(events.find((e) => e.type === 'settings.revealed')?.data).toMatchObject({ keys: ['API_KEY', 'MODELHUB_API_KEY', 'HUB_TOKEN', 'CHATBOT_BOT_TOKEN'] });
    const logged = JSON.stringify(events) + fs.readFileSync(path.join(t.dir, 'events.jsonl'), 'utf8');
    expect(logged).not.toContain(MODELHUB_KEY);
    expect(logged).not.toContain(TEST_API_KEY);
  });

  it('is throttled like logins after repeated wrong keys from a signed-in browser', async () => {
    const t = await studio({});
    // A session cookie (say, a stolen one) is what a guesser would use: it never meets the limiter itself.
    const cookie = await t.login();
    const reveal = (key: string) => fetch(`${t.url}/api/admin/settings/reveal`, jsonInit('POST', { api_key: key }, { Cookie: cookie }));
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await reveal(`wrong-${i}`)).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(403));
    expect(statuses[10]).toBe(429);
    // The right key waits too while the address is blocked.
    const blocked = await reveal(TEST_API_KEY);
    expect(blocked.status).toBe(429);
    expect(((await blocked.json()) as { detail: string }).detail).toMatch(/Too many wrong API keys/);
  });
});

/**
 * Brute force of the API key (HTTP header, login form, WebSocket handshake through one limiter),
 * weak keys kept off the LAN, secrets kept out of child processes, and the data directory's
 * file modes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { loadConfig } from '../../../server/config.js';
import { KeyLimiter } from '../../../server/http/key-limiter.js';
import { createFileLogger } from '../../../server/logging.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let t: TestStudio | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

const wrong = (url: string, i: number) => fetch(`${url}/api/admin/events`, { headers: { 'X-API-Key': `guess-number-${i}` } });

interface EventRow {
  type: string;
  severity: string;
  message: string;
  data: Record<string, unknown>;
}

describe('brute force of the API key', () => {
  it('answers 50 wrong X-API-Key requests with 401 then 429 + Retry-After, and one warning event without the keys', async () => {
    t = await startTestStudio();
    const statuses: number[] = [];
    let retryAfter = '';
    for (let i = 0; i < 50; i++) {
      const res = await wrong(t.url, i);
      statuses.push(res.status);
      if (res.status === 429) retryAfter = res.headers.get('retry-after') ?? '';
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses.slice(10)).toEqual(Array(40).fill(429));
    expect(Number(retryAfter)).toBeGreaterThan(0);
    // The login form and the WebSocket handshake share the limiter: the right key waits too.
    const login = await fetch(`${t.url}/api/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ api_key: t.apiKey }) });
    expect(login.status).toBe(429);
    const events = (await (await fetch(`${t.url}/api/admin/events?types=auth.throttled`, { headers: { Cookie: `session=${t.studio.mintSession()}` } })).json()) as EventRow[];
    expect(events).toHaveLength(1);
    expect(events[0]!.severity).toBe('warning');
    expect(JSON.stringify(events)).not.toMatch(/guess-number/);
  });

  it('counts wrong keys at the WebSocket handshake; a request with no key is not a failed check', async () => {
    t = await startTestStudio();
    for (let i = 0; i < 30; i++) expect((await fetch(`${t.url}/api/admin/events`)).status).toBe(401);
    expect((await t.api('/api/admin/events')).status).toBe(200);
    const handshake = (key: string) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(`${t!.url.replace('http', 'ws')}/ws`, { headers: { 'X-API-Key': key } });
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('open', () => {
          ws.close();
          resolve(101);
        });
        ws.on('error', () => {});
      });
    const codes: number[] = [];
    for (let i = 0; i < 12; i++) codes.push(await handshake(`ws-guess-${i}`));
    expect(codes.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(codes.slice(10)).toEqual([429, 429]);
    expect(await handshake(t.apiKey)).toBe(429);
  });

  it('has a global ceiling across addresses, for addresses that failed themselves', () => {
    let now = 0;
    const limiter = new KeyLimiter({ perAddress: 10, global: 25, now: () => now });
    for (let i = 0; i < 25; i++) limiter.fail(`10.0.0.${i}`);
    // An address that never failed is not refused (the owner cannot be locked out by others).
    expect(limiter.check('10.0.0.200').allowed).toBe(true);
    limiter.fail('10.0.0.200');
    const verdict = limiter.check('10.0.0.200');
    expect(verdict).toMatchObject({ allowed: false, scope: 'global', newlyBlocked: true });
    limiter.fail('10.0.0.201');
    expect(limiter.check('10.0.0.201').newlyBlocked).toBe(false);
    now += 60_001;
    expect(limiter.check('10.0.0.200').allowed).toBe(true);
  });
});

describe('weak keys stay on loopback', () => {
  it('keeps a key under 16 characters on 127.0.0.1 and says why; a long one binds as asked', async () => {
    const short = await loadConfig({ API_KEY: 'short-key-123', STUDIO_HOST: '0.0.0.0', ENGINE_MODE: 'standin', STUDIO_DIR: '/tmp/x' }, { probeEngine: async () => false });
    expect(short.host).toBe('127.0.0.1');
    expect(short.loopbackReason).toBe('short-key');
    const long = await loadConfig({ API_KEY: 'a-long-random-key-0123', STUDIO_HOST: '0.0.0.0', ENGINE_MODE: 'standin', STUDIO_DIR: '/tmp/x' }, { probeEngine: async () => false });
    expect(long.host).toBe('0.0.0.0');
    expect(long.loopbackReason).toBeNull();
    t = await startTestStudio({ env: { API_KEY: 'short-key-123', STUDIO_HOST: '0.0.0.0' } });
    expect(t.studio.config.host).toBe('127.0.0.1');
    const events = (await (await t.api('/api/admin/events?types=system.security')).json()) as EventRow[];
    expect(events).toHaveLength(1);
    expect(events[0]!.message).toMatch(/shorter than 16 characters[\s\S]*at least 16/);
    expect(JSON.stringify(events)).not.toContain('short-key-123');
  });
});

describe('secrets stay home', () => {
  it('starts the stand-in engine without API_KEY, MODELHUB_API_KEY, HUB_TOKEN or CHATBOT_BOT_TOKEN in its environment', async () => {
    t = await startTestStudio({
      startEngine: true,
      env: { MODELHUB_API_KEY: 'hub-secret-1', HUB_TOKEN: 'hf-secret-2', CHATBOT_BOT_TOKEN: '123:bot-secret-3', PATH: process.env.PATH ?? '/usr/bin', HOME: '/tmp' },
    });
    await t.studio.engineReady(20_000);
    const pid = t.studio.engine.state.pid!;
    const environ = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    const names = environ.map((entry) => entry.slice(0, entry.indexOf('=')));
    for (const secret of ['API_KEY', 'MODELHUB_API_KEY', 'HUB_TOKEN', 'CHATBOT_BOT_TOKEN']) expect(names).not.toContain(secret);
    expect(environ.join('\n')).not.toMatch(/secret|test-key-0123456789/);
    expect(names).toContain('PATH');
  }, 40_000);

  it('creates the data directory 0700 and the database, WAL, SHM, events and logs 0600', async () => {
    t = await startTestStudio();
    await t.api('/api/admin/events');
    const mode = (file: string) => fs.statSync(file).mode & 0o777;
    const paths = t.studio.config.paths;
    expect(mode(paths.root)).toBe(0o700);
    for (const file of [paths.dbFile, `${paths.dbFile}-wal`, `${paths.dbFile}-shm`, paths.eventsFile, paths.sessionSecret]) {
      expect(mode(file).toString(8), file).toBe('600');
    }
  });
});

describe('log files', () => {
  it('writes server.log 0600 under a permissive umask, and tightens one left 0644 by an older version', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-logs-'));
    const umask = process.umask(0o022);
    try {
      createFileLogger(dir, 'server', { console: false }).info('a line with an address 10.0.0.7');
      const file = path.join(dir, 'server.log');
      await expect.poll(() => fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes('10.0.0.7')).toBe(true);
      expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');

      const old = path.join(dir, 'old.log');
      fs.writeFileSync(old, 'from before\n', { mode: 0o644 });
      createFileLogger(dir, 'old', { console: false }).info('next');
      expect((fs.statSync(old).mode & 0o777).toString(8)).toBe('600');
    } finally {
      process.umask(umask);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * The real entry point as a user runs it: `server/main.ts` in its own process with the stand-in
 * engine as a child. SIGTERM stops everything and exits 0; a restart keeps the event log.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../../server/config.js';
import { freePort } from '../../helpers/ports.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-life-'));
const key = 'lifecycle-key-0123456789';
let port = 0;
let enginePort = 0;
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function startMain(): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', path.join(APP_ROOT, 'server', 'main.ts')], {
    cwd: APP_ROOT,
    env: {
      ...process.env,
      STUDIO_DIR: dir,
      STUDIO_PORT: String(port),
      STUDIO_HOST: '127.0.0.1',
      API_KEY: key,
      ENGINE_MODE: 'standin',
      ENGINE_PORT: String(enginePort),
      STANDIN_STEP_MS: '10',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function waitFor<T>(probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function engineAnswers(): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${enginePort}/system_stats`, { signal: AbortSignal.timeout(1000) })).ok;
  } catch {
    return false;
  }
}

async function runUntilEngineRunning(): Promise<ChildProcess> {
  const child = startMain();
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  try {
    await waitFor(async () => {
      const res = await fetch(`http://127.0.0.1:${port}/api/health`);
      const body = (await res.json()) as { engine: string };
      return body.engine === 'running' ? body : undefined;
    }, 45_000);
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`Studio did not come up: ${String(err)}\n${output}`, { cause: err });
  }
  expect(output).toContain(`http://127.0.0.1:${port}`);
  return child;
}

async function terminate(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  return exited;
}

describe('server/main.ts', () => {
  it('starts with the stand-in engine, stops on SIGTERM with exit 0, its children gone and the WAL checkpointed', async () => {
    port = await freePort();
    enginePort = await freePort();
    const child = await runUntilEngineRunning();
    expect(await engineAnswers()).toBe(true);
    expect(await terminate(child)).toBe(0);
    expect(await engineAnswers()).toBe(false);
    const wal = path.join(dir, 'db', 'studio.db-wal');
    expect(!fs.existsSync(wal) || fs.statSync(wal).size === 0).toBe(true);
    expect(fs.statSync(path.join(dir, '.session_secret')).mode & 0o777).toBe(0o600);
  }, 90_000);

  it('keeps the event log and the session secret across a restart', async () => {
    const secret = fs.readFileSync(path.join(dir, '.session_secret'));
    const child = await runUntilEngineRunning();
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/admin/events?types=system.backend.started`, { headers: { 'X-API-Key': key } });
      const events = (await res.json()) as Array<{ data: { version: string } }>;
      expect(events).toHaveLength(2);
      expect(events[1]!.data.version).toMatch(/^\d+\.\d+\.\d+/);
      expect(fs.readFileSync(path.join(dir, '.session_secret')).equals(secret)).toBe(true);
    } finally {
      expect(await terminate(child)).toBe(0);
    }
  }, 90_000);

  it('leaves no stand-in behind when Studio itself is killed with SIGKILL', async () => {
    const child = await runUntilEngineRunning();
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    await waitFor(async () => ((await engineAnswers()) ? undefined : true), 15_000);
    expect(await engineAnswers()).toBe(false);
  }, 90_000);
});

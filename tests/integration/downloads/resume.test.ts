/**
 * A Studio process killed with SIGKILL in the middle of a download resumes it on the next boot:
 * the queue row survives in SQLite and the bytes in the `.part` file, so the next request asks
 * for exactly the missing range and the finished file still has the catalog's SHA-256.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { catalogOf, repoEntry, sha256, waitFor, writeCatalogs } from '../../helpers/fake-catalogs.js';
import { startFakeFileServer, type FakeFileServer } from '../../helpers/fake-file-server.js';
import { freePort } from '../../helpers/ports.js';
import { startTestStudio, TEST_API_KEY, type TestStudio } from '../../helpers/studio.js';

const root = path.resolve(import.meta.dirname, '..', '..', '..');
let cleanup: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** `server/main.ts` in its own process group, so SIGKILL takes the whole tree. */
async function spawnStudio(env: Record<string, string>): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const port = await freePort();
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'server', 'main.ts')], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env, STUDIO_PORT: String(port), STUDIO_HOST: '127.0.0.1', API_KEY: TEST_API_KEY },
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  cleanup.push(() => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`studio exited early: ${output}`);
      return (await fetch(`${url}/api/health`)).status === 200;
    },
    'the child Studio to answer',
    30_000,
  );
  return { child, url, output: () => output };
}

describe('download resume across a crash', () => {
  it('resumes from the part file after SIGKILL, with the Range the fake saw, and verifies the hash', { timeout: 90_000 }, async () => {
    const content = randomBytes(1024 * 1024 + 123);
    const origin: FakeFileServer = await startFakeFileServer({ content, throttleBytesPerSec: 96 * 1024 });
    cleanup.push(() => origin.close());
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
    cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    writeCatalogs(dir, { models: catalogOf([repoEntry('big.safetensors', { sha256: sha256(content) })]) });
    const env = { STUDIO_DIR: dir, ENGINE_MODE: 'external', ENGINE_PORT: String(await freePort()), REPOHOST_BASE_URL: origin.url };

    const first = await spawnStudio(env);
    const queued = await fetch(`${first.url}/api/admin/models/download/big.safetensors`, { method: 'POST', headers: { 'X-API-Key': TEST_API_KEY } });
    expect(await queued.json()).toEqual({ status: 'queued', file: 'big.safetensors' });
    const part = path.join(dir, 'models', 'checkpoints', 'big.safetensors.part');
    await waitFor(() => fs.existsSync(part) && fs.statSync(part).size >= 200 * 1024, 'a fifth of the file in the part', 30_000);

    process.kill(-first.child.pid!, 'SIGKILL');
    if (first.child.exitCode === null && first.child.signalCode === null) await once(first.child, 'exit');
    const offset = fs.statSync(part).size;
    expect(offset).toBeGreaterThan(0);
    expect(offset).toBeLessThan(content.length);
    expect(origin.requests).toHaveLength(1);

    origin.set({ throttleBytesPerSec: null });
    const second: TestStudio = await startTestStudio({ dir, env: { REPOHOST_BASE_URL: origin.url } });
    cleanup.push(() => second.stop());
    await waitFor(() => fs.existsSync(path.join(dir, 'models', 'checkpoints', 'big.safetensors')), 'the finished file', 30_000);

    expect(origin.requests).toHaveLength(2);
    expect(origin.requests[1]?.headers.range).toBe(`bytes=${offset}-`);
    expect(origin.requests[1]?.headers['if-range']).toBe('"v1"');
    expect(sha256(path.join(dir, 'models', 'checkpoints', 'big.safetensors'))).toBe(sha256(content));
    expect(fs.existsSync(part)).toBe(false);
    const log = (await (await second.api('/api/admin/activity-log')).json()) as Array<{ message: string }>;
    expect(log.map((line) => line.message)).toEqual(
      expect.arrayContaining([expect.stringMatching(/Resuming 1 download/), expect.stringMatching(/^Resuming big\.safetensors at /)]),
    );
  });
});

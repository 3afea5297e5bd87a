/**
 * Restart: the answer goes out first, the WAL is flushed, then the shell's relaunch runs. A real
 * headless Studio process replaces itself on the same port. `system.migration` on boots that
 * migrated the database, and only those.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StudioEvent } from '../../../server/contracts/events.contract.js';
import { MIGRATIONS } from '../../../server/db/migrations.js';
import { startStudioProcess } from '../../helpers/studio-process.js';
import { startTestStudio, TEST_API_KEY } from '../../helpers/studio.js';
import { until } from '../../helpers/studio-ws.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-restart-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('POST /api/admin/system/restart', () => {
  it('answers, flushes the WAL, then relaunches once', async () => {
    const dir = tempDir();
    const wal = path.join(dir, 'db', 'studio.db-wal');
    const calls: Array<{ walBytes: number }> = [];
    const t = await startTestStudio({ dir, relaunch: () => void calls.push({ walBytes: fs.statSync(wal).size }) });
    cleanups.push(() => t.stop());
    const res = await t.api('/api/admin/system/restart', { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'restarting', message: expect.stringMatching(/reconnect/) });
    await until(() => calls.length === 1 || undefined, 'the relaunch');
    expect(calls[0]!.walBytes).toBe(0);
    const events = (await (await t.api('/api/admin/events?types=system.restart')).json()) as StudioEvent[];
    expect(events).toHaveLength(1);
    // A second request while one is pending does not relaunch twice.
    // The second one is handed to the restart service once its response has gone out; a restart it
    // scheduled would have written its event at once and relaunched on the next timer turn, both
    // before the events request below is answered.
    expect((await t.api('/api/admin/system/restart', { method: 'POST' })).status).toBe(200);
    expect(await (await t.api('/api/admin/events?types=system.restart')).json()).toHaveLength(1);
    expect(calls).toHaveLength(1);
  });

  it('answers 409 when Studio was started without a way to relaunch itself', async () => {
    const t = await startTestStudio();
    cleanups.push(() => t.stop());
    const res = await t.api('/api/admin/system/restart', { method: 'POST' });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/relaunch/);
  });

  it('replaces a headless Studio process with a new one on the same port', async () => {
    const dir = tempDir();
    const first = await startStudioProcess({ STUDIO_DIR: dir, ENGINE_MODE: 'external', ENGINE_PORT: '9' });
    const group = first.child.pid!;
    // The replacement runs in the first process's group: end them all, whatever happened.
    cleanups.push(async () => {
      try {
        process.kill(-group, 'SIGKILL');
      } catch {}
      await first.kill();
    });
    const uptime = async () => (await (await first.api('/api/admin/system/uptime')).json()) as { started_at: string };
    const before = await uptime();
    const exited = new Promise<number | null>((resolve) => first.child.once('exit', (code) => resolve(code)));
    expect((await first.api('/api/admin/system/restart', { method: 'POST' })).status).toBe(200);
    expect(await exited).toBe(0);
    const after = await until(async () => {
      try {
        const now = await uptime();
        return now.started_at !== before.started_at ? now : undefined;
      } catch {
        return undefined;
      }
    }, 'the replacement answering', 30_000);
    expect(new Date(after.started_at).getTime()).toBeGreaterThan(new Date(before.started_at).getTime());
    const res = await fetch(`${first.url}/api/admin/events?types=system.backend.started`, { headers: { 'X-API-Key': TEST_API_KEY } });
    expect(((await res.json()) as StudioEvent[]).length).toBe(2);
  });
});

describe('system.migration', () => {
  it('is emitted on the boot that migrated the database, not on later ones', async () => {
    const dir = tempDir();
    let t = await startTestStudio({ dir });
    const latest = MIGRATIONS.at(-1)!.version;
    let events = (await (await t.api('/api/admin/events?types=system.migration')).json()) as StudioEvent[];
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ severity: 'info', data: { from: 0, to: latest } });
    expect((events[0]!.data.migrations as unknown[]).length).toBe(MIGRATIONS.length);
    await t.stop();
    t = await startTestStudio({ dir });
    cleanups.push(() => t.stop());
    events = (await (await t.api('/api/admin/events?types=system.migration')).json()) as StudioEvent[];
    expect(events).toHaveLength(1);
  });
});

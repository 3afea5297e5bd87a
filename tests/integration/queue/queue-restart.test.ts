/**
 * Restarts and Studio's queue: jobs left waiting in Studio (never handed to the engine) become
 * `stalled` at the next boot (the spec's restart rule), a paused queue stays paused, and
 * "Retry all stalled" retries each of them once (a second call finds nothing left to retry).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execute, plantModels, SHIPPED_MODELS, waitForJob } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-queue-restart-'));
let t: TestStudio | undefined;
afterAll(async () => {
  await t?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function post(api: TestStudio['api'], pathname: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await api(pathname, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("a restart with jobs waiting in Studio's queue", () => {
  it('stalls them at boot, keeps the queue paused, and retries all stalled once', async () => {
    const first = await startTestStudio({ dir, startEngine: true, env: { STANDIN_STEP_MS: '5' } });
    plantModels(dir, SHIPPED_MODELS);
    await first.studio.engineReady();
    expect((await post(first.api, '/api/admin/queue/pause')).body).toMatchObject({ paused: true });
    const ids: string[] = [];
    for (const p of ['one', 'two']) ids.push((await execute(first.api, 'txt2img-sdxl', { params: { positive: p, steps: 2 } })).prompt_id);
    await first.stop();

    // The manual way: with the automatic retry after a restart turned off.
    t = await startTestStudio({ dir, startEngine: true, env: { STANDIN_STEP_MS: '5', QUEUE_RESUME_AFTER_RESTART: 'off' } });
    for (const id of ids) {
      const job = t.studio.jobs.get(id)!;
      expect(job.status).toBe('stalled');
      expect(job.error).toMatch(/^Studio restarted while this job waited in its queue/);
    }
    const events = (await (await t.api('/api/admin/events?types=system.startup,job.stalled&limit=100')).json()) as Array<{ type: string; data: Record<string, unknown> }>;
    expect(events.find((e) => e.type === 'system.startup' && JSON.stringify(e.data.stalled) === JSON.stringify(ids))).toBeDefined();
    for (const id of ids) expect(events.filter((e) => e.type === 'job.stalled' && e.data.prompt_id === id)).toHaveLength(1);
    expect((await (await t.api('/api/admin/queue/state')).json()) as Record<string, unknown>).toMatchObject({ paused: true, waiting: 0 });
    expect((await post(t.api, '/api/admin/queue/resume')).body).toMatchObject({ paused: false });
    await t.studio.engineReady();

    const retried = await post(t.api, '/api/admin/history/retry-stalled');
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    const list = retried.body.retried as Array<{ prompt_id: string; retry_of: string }>;
    expect(list.map((r) => r.retry_of)).toEqual(ids);
    expect(retried.body.errors).toEqual([]);
    for (const r of list) expect((await waitForJob(t.api, r.prompt_id, ['completed', 'error', 'stalled'])).status).toBe('completed');
    // Already retried: nothing left to retry.
    expect((await post(t.api, '/api/admin/history/retry-stalled')).body).toEqual({ retried: [], errors: [] });
  }, 120_000);
});

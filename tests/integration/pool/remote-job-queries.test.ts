/**
 * Job queries ask the engine that ran the job, not this computer's: a result no longer in the job
 * folder is fetched from the engine by URL that made it (also after a Studio restart, when only
 * the record says which engine that was), and deleting a job running there interrupts it there
 * first, as cancel does — it never runs on to success. This computer's engine does not answer.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execute, waitForJob } from '../../helpers/runner.js';
import { startStandin, type StandinProcess } from '../../helpers/standin-process.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { until } from '../../helpers/studio-ws.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-remote-queries-'));
let t: TestStudio | undefined;
let remote: StandinProcess | undefined;

afterAll(async () => {
  await t?.stop();
  await remote?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const json = async <T>(res: Response) => (await res.json()) as T;
const boot = () => startTestStudio({ dir, startEngine: true, engineProbeMs: 200, env: { ENGINE_MODE: 'external', ENGINE_POOL_PROBE_MS: '200' } });
const online = async (studio: TestStudio, id: string) =>
  until(async () => (await json<{ engines: Array<{ id: string; status: string }> }>(await studio.api('/api/admin/engines'))).engines.find((e) => e.id === id)?.status === 'online', 'the engine by URL online', 30_000);

/** Empty the job's folder: the result can then only come from the engine that made it. */
function emptyJobFolder(outputDir: string): void {
  const folder = path.join(dir, 'assets', 'output', outputDir);
  for (const f of fs.readdirSync(folder)) fs.rmSync(path.join(folder, f), { recursive: true, force: true });
}

describe('job queries for a job on an engine by URL', () => {
  it('fetch its result from that engine, before and after a restart, and a delete stops it there', async () => {
    remote = await startStandin({ stepMs: 200, models: { checkpoints: ['sd_xl_base_1.0.safetensors'] } });
    t = await boot();
    const { id } = await json<{ id: string }>(await t.api('/api/admin/engines', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'Box', url: remote.url }) }));
    await online(t, id);

    const done = (await execute(t.api, 'txt2img-sdxl', { params: { positive: 'made on the box', steps: 2 } })).prompt_id;
    expect((await waitForJob(t.api, done, ['completed', 'error', 'stalled'], 30_000)).status).toBe('completed');
    const record = await json<{ engine_id?: string; output_dir: string }>(await t.api(`/api/admin/history/${done}`));
    expect(record.engine_id).toBe(id);
    emptyJobFolder(record.output_dir);
    const result = await t.api(`/api/run/result/${done}?output_type=image`);
    expect(result.status).toBe(200);
    expect((await result.arrayBuffer()).byteLength).toBeGreaterThan(0);
    const status = await json<{ status: string; outputs?: Record<string, unknown> }>(await t.api(`/api/run/status/${done}`));
    expect(status).toMatchObject({ status: 'completed', outputs: { image: expect.anything() } });

    // A job running on the box, deleted: interrupted there at once.
    const running = (await execute(t.api, 'txt2img-sdxl', { params: { positive: 'deleted while it runs', steps: 30 } })).prompt_id;
    await until(async () => (await json<Array<{ prompt_id: string; status: string }>>(await t!.api('/api/admin/queue'))).some((j) => j.prompt_id === running && j.status === 'running'), 'the job running on the box', 30_000);
    const deleted = await json<{ deleted: string[] }>(await t.api('/api/admin/history/delete', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ prompt_ids: [running] }) }));
    expect(deleted.deleted).toEqual([running]);
    await until(async () => {
      const q = await json<{ queue_running: unknown[][]; queue_pending: unknown[][] }>(await fetch(`${remote!.url}/queue`));
      return ![...q.queue_running, ...q.queue_pending].some((item) => item[1] === running);
    }, 'the deleted job gone from the box', 5_000);
    const history = await json<Record<string, { status?: { status_str?: string } }>>(await fetch(`${remote.url}/history/${running}`));
    expect(history[running]?.status?.status_str).not.toBe('success');

    // After a restart only the record says which engine made the result.
    await t.stop();
    t = await boot();
    await online(t, id);
    const again = await t.api(`/api/run/result/${done}?output_type=image`);
    expect(again.status).toBe(200);
    expect((await again.arrayBuffer()).byteLength).toBeGreaterThan(0);
  }, 120_000);
});

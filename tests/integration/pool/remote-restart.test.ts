/**
 * Studio restarts while jobs are on an engine added by URL (a ComfyUI elsewhere keeps running
 * when Studio stops). The handed jobs are not stalled by the restart: that engine's own reconciler
 * checks them with it once it answers again (one `system.startup` summary), like the local
 * engine's after a restart — one that finished while Studio was down is finished from the
 * engine's history with its outputs pulled into the job folder, one still running there is
 * followed again and completes. The engine keeps each job (`engine_id`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execute, waitForJob } from '../../helpers/runner.js';
import { startStandin, type StandinProcess } from '../../helpers/standin-process.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { until } from '../../helpers/studio-ws.js';

interface QueuedJob {
  prompt_id: string;
  status: string;
  engine_id: string | null;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-remote-restart-'));
let t: TestStudio | undefined;
let remote: StandinProcess | undefined;

afterAll(async () => {
  await t?.stop();
  await remote?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const json = async <T>(res: Response) => (await res.json()) as T;
/** This computer's engine does not answer (external, nothing on its port): every job goes to the engine by URL. */
const boot = () => startTestStudio({ dir, startEngine: true, engineProbeMs: 200, env: { ENGINE_MODE: 'external', ENGINE_POOL_PROBE_MS: '200' } });
const images = (folder: string) => (fs.existsSync(folder) ? fs.readdirSync(folder, { recursive: true }).map(String).filter((f) => /\.(png|webp|jpg)$/.test(f)) : []);

describe('a Studio restart with jobs on an engine by URL', () => {
  it('reconciles them with that engine when it answers: finished ones with their outputs, running ones followed to the end', async () => {
    remote = await startStandin({ stepMs: 200, models: { checkpoints: ['sd_xl_base_1.0.safetensors'] } });
    const first = await boot();
    const added = await first.api('/api/admin/engines', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'Box', url: remote.url }) });
    const { id } = await json<{ id: string }>(added);
    await until(async () => (await json<{ engines: Array<{ id: string; status: string }> }>(await first.api('/api/admin/engines'))).engines.find((e) => e.id === id)?.status === 'online', 'the engine by URL online', 30_000);

    // One job nearly done when Studio stops, one prefetched behind it that runs for a while.
    const short = (await execute(first.api, 'txt2img-sdxl', { params: { positive: 'short', steps: 3 } })).prompt_id;
    const long = (await execute(first.api, 'txt2img-sdxl', { params: { positive: 'long', steps: 40 } })).prompt_id;
    await until(async () => {
      const q = await json<QueuedJob[]>(await first.api('/api/admin/queue'));
      return q.find((j) => j.prompt_id === short)?.status === 'running' && q.find((j) => j.prompt_id === long)?.engine_id === id;
    }, 'the short job running and the long one prefetched on the engine by URL', 30_000);
    await first.stop();
    // The short job ends while Studio is down.
    await until(async () => Object.keys(await json<object>(await fetch(`${remote!.url}/history/${short}`))).length > 0, 'the short job in the engine history', 30_000);

    t = await boot();
    // Not stalled by the restart: they were on an engine, which still has them.
    for (const job of [short, long]) expect(['queued', 'running', 'completed']).toContain(t.studio.jobs.get(job)?.status);
    for (const job of [short, long]) expect((await waitForJob(t.api, job, ['completed', 'error', 'stalled'], 60_000)).status).toBe('completed');
    for (const job of [short, long]) {
      const record = await json<{ engine_id?: string; output_dir: string }>(await t.api(`/api/admin/history/${job}`));
      expect(record.engine_id).toBe(id);
      // The outputs came from the engine's own folder into the job folder, also for the job it finished while Studio was down.
      expect(images(path.join(dir, 'assets', 'output', record.output_dir))).not.toEqual([]);
    }
    const summaries = await json<Array<{ data: { followed?: string[]; finished?: string[]; stalled?: string[] } }>>(await t.api('/api/admin/events?types=system.startup&limit=20'));
    const counted = summaries.flatMap((e) => [...(e.data.followed ?? []), ...(e.data.finished ?? [])]);
    expect(counted).toEqual(expect.arrayContaining([short, long]));
    expect(summaries.flatMap((e) => e.data.stalled ?? [])).toEqual([]);
  }, 150_000);
});

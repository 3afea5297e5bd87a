/**
 * No job runs twice: an engine that goes silent mid-job (its process paused: it neither answers
 * nor dies) is marked offline and its running and prefetched jobs fail over to another engine.
 * The failover cancels them on it at once (deleted from its queue, the running one interrupted):
 * the requests wait in its socket and are read as soon as it runs again, so the old copy never
 * completes into the engine's history or output folder (what is still there when it answers again
 * is taken off it by the strays check, `engine.strays_removed`). Two stand-ins by URL; this computer's
 * engine does not answer, so which engine takes which job is fixed by the routing rules alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { execute, waitForJob } from '../../helpers/runner.js';
import { startStandin, type StandinProcess } from '../../helpers/standin-process.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { until } from '../../helpers/studio-ws.js';

interface QueuedJob {
  prompt_id: string;
  status: string;
  engine_id: string | null;
}

let t: TestStudio;
let slow: StandinProcess;
let fast: StandinProcess;

const json = async <T>(res: Response) => (await res.json()) as T;
const post = (p: string, body?: unknown) => t.api(p, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body ?? {}) });
const queue = async () => json<QueuedJob[]>(await t.api('/api/admin/queue'));
const engineStatus = async (id: string) => (await json<{ engines: Array<{ id: string; status: string }> }>(await t.api('/api/admin/engines'))).engines.find((e) => e.id === id)?.status;
const engineQueue = async (e: StandinProcess) => json<{ queue_running: unknown[][]; queue_pending: unknown[][] }>(await fetch(`${e.url}/queue`));

beforeAll(async () => {
  const models = { checkpoints: ['sd_xl_base_1.0.safetensors'] };
  [slow, fast] = await Promise.all([startStandin({ stepMs: 300, models }), startStandin({ stepMs: 100, models })]);
  t = await startTestStudio({ startEngine: true, engineProbeMs: 200, env: { ENGINE_MODE: 'external', ENGINE_POOL_PROBE_MS: '200' } });
  await until(async () => t.studio.engine.state.status === 'unreachable', 'the local engine unreachable', 30_000);
}, 60_000);

afterAll(async () => {
  slow?.child.kill('SIGCONT');
  await t?.stop();
  await Promise.all([slow?.stop(), fast?.stop()]);
});

describe('an engine back after failover', () => {
  it('has the old copies of the jobs it lost taken off it: they never complete there', async () => {
    const add = async (name: string, url: string) => (await json<{ id: string }>(await post('/api/admin/engines', { name, url }))).id;
    const slowId = await add('Slow box', slow.url);
    const fastId = await add('Fast box', fast.url);
    await until(async () => (await engineStatus(slowId)) === 'online' && (await engineStatus(fastId)) === 'online', 'both engines online', 30_000);

    // Released in one round: the first job to the slow engine (first of two idle ones), the second
    // to the fast one, the third prefetched on the slow one (both busy; the first in the pool wins).
    expect((await post('/api/admin/queue/pause')).status).toBe(200);
    const run = (positive: string, steps: number) => execute(t.api, 'txt2img-sdxl', { params: { positive, steps } });
    const first = (await run('old copy', 20)).prompt_id;
    const second = (await run('on the fast box', 20)).prompt_id;
    const third = (await run('prefetched', 3)).prompt_id;
    expect((await post('/api/admin/queue/resume')).status).toBe(200);
    await until(async () => {
      const q = await queue();
      const on = (id: string) => q.find((j) => j.prompt_id === id);
      return on(first)?.engine_id === slowId && on(first)?.status === 'running' && on(third)?.engine_id === slowId && on(second)?.engine_id === fastId;
    }, 'the first job running and the third prefetched on the slow engine', 30_000);

    // The slow engine goes silent mid-job: paused, it neither answers nor dies.
    slow.child.kill('SIGSTOP');
    await until(async () => (await engineStatus(slowId)) === 'offline', 'the slow engine offline', 30_000);
    await until(async () => (await queue()).find((j) => j.prompt_id === first)?.engine_id === fastId, 'the first job on the fast engine', 30_000);
    slow.child.kill('SIGCONT');
    await until(async () => (await engineStatus(slowId)) === 'online', 'the slow engine online again', 30_000);

    for (const id of [first, second, third]) expect((await waitForJob(t.api, id, ['completed', 'error', 'stalled'], 60_000)).status).toBe('completed');
    const record = await json<{ engine_id?: string; output_dir: string }>(await t.api(`/api/admin/history/${first}`));
    expect(record.engine_id).toBe(fastId);

    // The old copy of the first job left the slow engine without completing: no success in its
    // history, nothing written under the job's folder name in its output folder.
    await until(async () => {
      const q = await engineQueue(slow);
      return ![...q.queue_running, ...q.queue_pending].some((item) => item[1] === first);
    }, 'the old copy gone from the slow engine', 30_000);
    const history = await json<Record<string, { status?: { status_str?: string } }>>(await fetch(`${slow.url}/history/${first}`));
    expect(history[first]?.status?.status_str).not.toBe('success');
    const written = fs.existsSync(path.join(slow.dir, 'output')) ? fs.readdirSync(path.join(slow.dir, 'output'), { recursive: true }).map(String) : [];
    expect(written.filter((f) => f.startsWith(record.output_dir) && /\.(png|webp|jpg)$/.test(f))).toEqual([]);
    // The failover's cancel, read by the engine as soon as it ran again, takes both copies off it;
    // when its health check saw it back first (a loaded machine), the strays check took them: either
    // way only the jobs it lost, never one it still owned.
    const removed = await json<Array<{ data: { engine_id: string; prompt_ids: string[] } }>>(await t.api('/api/admin/events?types=engine.strays_removed&limit=10'));
    const strays = removed.filter((e) => e.data.engine_id === slowId).flatMap((e) => e.data.prompt_ids);
    expect(strays.filter((id) => id !== first && id !== third)).toEqual([]);
    const queueNow = await engineQueue(slow);
    expect([...queueNow.queue_running, ...queueNow.queue_pending].map((item) => item[1])).not.toContain(third);
  }, 150_000);
});

/**
 * The engine pool with three stand-in engines on different ports: Studio's own (local) and two
 * added by URL, each a separate process with folders of its own. Only one of them has the video
 * models: a video job goes there (its input image uploaded to it, its outputs pulled into the job
 * folder). Killing an engine mid-job sends its job to another engine, which completes it. An
 * engine removed leaves jobs only it could run refused at execute, naming what each engine lacks.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute, executeRaw, plantModels, SAMPLE_PNG, SHIPPED_MODELS, waitForJob } from '../../helpers/runner.js';
import { startStandin, type StandinProcess } from '../../helpers/standin-process.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { until } from '../../helpers/studio-ws.js';

interface Engine {
  id: string;
  name: string;
  kind: string;
  url: string;
  status: string;
  gpu: { name: string } | null;
  current_job: string | null;
  jobs_done: number;
  lacks: Array<{ workflow_id: string; missing: string[] }>;
  removable: boolean;
}
interface QueuedJob {
  prompt_id: string;
  status: string;
  engine_id: string | null;
  output_dir: string;
}

let t: TestStudio;
let video: StandinProcess;
let small: StandinProcess;
let videoId: string;
let smallId: string;

const json = async <T>(res: Response) => (await res.json()) as T;
const engines = async () => (await json<{ engines: Engine[] }>(await t.api('/api/admin/engines'))).engines;
const queue = async () => json<QueuedJob[]>(await t.api('/api/admin/queue'));
const add = (body: unknown) => t.api('/api/admin/engines', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

beforeAll(async () => {
  // The video engine has every model; the small one and the local one only the SDXL checkpoint.
  [video, small] = await Promise.all([startStandin({ stepMs: 100, models: SHIPPED_MODELS }), startStandin({ stepMs: 400, models: { checkpoints: ['sd_xl_base_1.0.safetensors'] } })]);
  t = await startTestStudio({ startEngine: true, env: { STANDIN_STEP_MS: '100', STANDIN_NODE_MS: '20', ENGINE_POOL_PROBE_MS: '200' } });
  plantModels(t.dir, { checkpoints: ['sd_xl_base_1.0.safetensors'] });
  await until(async () => (await t.studio.engineModule.client.queue().catch(() => null)) !== null, 'the local stand-in', 30_000);
  const a = await add({ name: 'Video box', url: video.url });
  expect(a.status).toBe(201);
  videoId = (await json<Engine>(a)).id;
  smallId = (await json<Engine>(await add({ name: 'Small box', url: small.url }))).id;
  await until(async () => (await engines()).every((e) => e.status === 'online'), 'three engines online', 30_000);
}, 90_000);

afterAll(async () => {
  await t?.stop();
  await Promise.all([video?.stop(), small?.stop()]);
});

describe('the engine pool', () => {
  it('lists the three engines with their kind, status and GPU; refuses bad additions and removals', async () => {
    const list = await engines();
    expect(list.map((e) => [e.id, e.kind, e.status, e.removable])).toEqual([
      ['local', 'local', 'online', false],
      [videoId, 'remote', 'online', true],
      [smallId, 'remote', 'online', true],
    ]);
    expect(list.every((e) => e.gpu !== null)).toBe(true);
    // The small engine lacks the video models, and says so per workflow.
    const smallLacks = list.find((e) => e.id === smallId)!.lacks.find((l) => l.workflow_id === 'img2vid-wan');
    expect(smallLacks?.missing).toContain('model wan2.1_i2v_480p_14B_fp8_e4m3fn.safetensors');
    expect(list.find((e) => e.id === videoId)!.lacks.find((l) => l.workflow_id === 'img2vid-wan')).toBeUndefined();

    expect((await add({ name: 'x', url: 'ftp://example.com' })).status).toBe(400);
    expect((await add({ url: video.url })).status).toBe(400);
    const dup = await add({ name: 'again', url: `${video.url}/` });
    expect(dup.status).toBe(409);
    expect((await t.api('/api/admin/engines/local', { method: 'DELETE' })).status).toBe(409);
    expect((await t.api('/api/admin/engines/nope', { method: 'DELETE' })).status).toBe(404);

    // Workflow readiness counts the engines a workflow can run on.
    const workflows = (await json<{ workflows: Array<{ id: string; engines_ready?: { ready: number; total: number } }> }>(await t.api('/api/admin/workflows'))).workflows;
    expect(workflows.find((w) => w.id === 'img2vid-wan')?.engines_ready).toEqual({ ready: 1, total: 3 });
    expect(workflows.find((w) => w.id === 'txt2img-sdxl')?.engines_ready).toEqual({ ready: 3, total: 3 });
  });

  it('runs a job needing a model only one engine has on that engine: input uploaded, outputs in the job folder', async () => {
    const job = await execute(t.api, 'img2vid-wan', { params: { steps: 2 }, image: { data: fs.readFileSync(SAMPLE_PNG), name: 'cat.png' } });
    const onEngine = await until(async () => (await queue()).find((j) => j.prompt_id === job.prompt_id && j.engine_id !== null), 'handed to an engine');
    expect(onEngine.engine_id).toBe(videoId);
    const done = await waitForJob(t.api, job.prompt_id, ['completed', 'error'], 60_000);
    expect(done.status).toBe('completed');
    // The input went to the video engine's own input folder; the outputs came back to Studio's job folder.
    expect(fs.readdirSync(path.join(video.dir, 'input')).length).toBeGreaterThan(0);
    const folder = path.join(t.dir, 'assets', 'output', String(done.output_dir));
    const files = fs.readdirSync(folder, { recursive: true }).map(String).filter((f) => /\.(mp4|webm|png|webp|gif)$/.test(f));
    expect(files.length).toBeGreaterThan(0);
    expect((await engines()).find((e) => e.id === videoId)!.jobs_done).toBeGreaterThanOrEqual(1);
    // The finished record keeps the engine that ran it (its own route and the history list), and its events name it.
    expect((await json<{ engine_id?: string }>(await t.api(`/api/admin/history/${job.prompt_id}`))).engine_id).toBe(videoId);
    const history = await json<Array<{ prompt_id: string; engine_id?: string }>>(await t.api('/api/admin/history?limit=20'));
    expect(history.find((j) => j.prompt_id === job.prompt_id)?.engine_id).toBe(videoId);
    const events = await json<Array<{ type: string; data: { prompt_id: string; engine_id?: string } }>>(await t.api('/api/admin/events?types=job.started,job.completed&limit=100'));
    const mine = events.filter((e) => e.data.prompt_id === job.prompt_id);
    expect(mine.map((e) => [e.type, e.data.engine_id]).sort()).toEqual([['job.completed', videoId], ['job.started', videoId]]);
  }, 90_000);

  it('sends the job of an engine killed mid-job to another engine, which completes it', async () => {
    const jobs = await Promise.all([1, 2, 3].map((n) => execute(t.api, 'txt2img-sdxl', { params: { positive: `job ${n}`, steps: 12 } })));
    const ids = jobs.map((j) => j.prompt_id);
    // One job each: an idle engine is preferred to prefetching on a busy one.
    const onSmall = await until(async () => (await queue()).find((j) => ids.includes(j.prompt_id) && j.engine_id === smallId && j.status === 'running'), 'a job running on the small engine', 30_000);
    expect(new Set((await queue()).filter((j) => ids.includes(j.prompt_id)).map((j) => j.engine_id))).toEqual(new Set(['local', videoId, smallId]));
    small.kill();
    await until(async () => (await engines()).find((e) => e.id === smallId)?.status === 'offline', 'the small engine offline', 30_000);
    const requeued = await json<Array<{ data: { prompt_id: string; engine_id: string } }>>(await t.api('/api/admin/events?types=job.requeued&limit=100'));
    expect(requeued.map((e) => e.data)).toContainEqual(expect.objectContaining({ prompt_id: onSmall.prompt_id, engine_id: smallId }));
    const moved = await until(async () => (await queue()).find((j) => j.prompt_id === onSmall.prompt_id && j.engine_id !== null && j.engine_id !== smallId), 'the job on another engine', 30_000);
    expect(['local', videoId]).toContain(moved.engine_id);
    for (const id of ids) expect((await waitForJob(t.api, id, ['completed', 'error', 'stalled'], 60_000)).status).toBe('completed');
  }, 120_000);

  it('refuses at execute a job no engine can run, naming what each lacks; a removed engine takes no more jobs', async () => {
    const removed = await t.api(`/api/admin/engines/${videoId}`, { method: 'DELETE' });
    expect(removed.status).toBe(200);
    expect((await engines()).map((e) => e.id)).not.toContain(videoId);
    const res = await executeRaw(t.api, 'img2vid-wan', { params: { steps: 2 }, image: { data: fs.readFileSync(SAMPLE_PNG), name: 'cat.png' } });
    expect(res.status).toBe(400);
    const body = await json<{ detail: string }>(res);
    expect(body.detail).toContain('No engine can run it');
    expect(body.detail).toMatch(/this computer lacks [^;]*model wan2.1_i2v_480p_14B_fp8_e4m3fn.safetensors/);
    expect(body.detail).toContain(`(${smallId}) did not say what it has`);
  }, 60_000);
});

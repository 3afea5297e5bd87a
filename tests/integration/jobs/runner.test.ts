/**
 * The runner end to end against the stand-in engine: upload, then each kind of shipped workflow run
 * through (image filter, sampler, video) with live progress over the Studio WebSocket, previews,
 * seeds, results and the job folder.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProgressObject as Progress } from '../../../server/contracts/jobs.contract.js';
import { parseLocalStamp } from '../../../server/time.js';
import { execute, plantModels, SAMPLE_PNG, SHIPPED_MODELS, uploadSample, waitForJob } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { connectStudioWs, decodeStudioPreview, until, type StudioWsClient, type WsFrame } from '../../helpers/studio-ws.js';

let t: TestStudio;
let ws: StudioWsClient;

beforeAll(async () => {
  // 40 ms per step and 150 ms per other node: a job runs for about half a second, long enough to
  // look at it while it runs.
  t = await startTestStudio({ startEngine: true, env: { STANDIN_STEP_MS: '40', STANDIN_NODE_MS: '150' } });
  await t.studio.engineReady();
  plantModels(t.dir, SHIPPED_MODELS);
  ws = await connectStudioWs(t.url, t.apiKey);
});

afterAll(async () => {
  await ws?.close();
  await t?.stop();
});

const forPrompt = (promptId: string) => (f: WsFrame) => (f.data.prompt_id ?? (f.data as { data?: { prompt_id?: unknown } }).data?.prompt_id) === promptId;
const outputDir = () => path.join(t.dir, 'assets', 'output');


const PROGRESS_KEYS = [
  'status',
  'node_title',
  'node_type',
  'step',
  'total_steps',
  'nodes_done',
  'total_nodes',
  'effective_total',
  'cached_count',
  'percent',
  'eta_seconds',
  'step_rate',
  'node_outputs',
];

describe('POST /api/run/upload-image', () => {
  it('stores the image in the engine input folder under a unique name', async () => {
    const first = await uploadSample(t.api, 'My Photo.png');
    const second = await uploadSample(t.api, 'My Photo.png');
    expect(first).not.toBe(second);
    expect(first).toMatch(/^My_Photo_\d{14}_[0-9a-f]{4}\.png$/);
    const stored = path.join(t.dir, 'assets', 'input', first);
    expect(fs.readFileSync(stored).equals(fs.readFileSync(SAMPLE_PNG))).toBe(true);
  });

  it('answers 400 without a file', async () => {
    const res = await t.api('/api/run/upload-image', { method: 'POST', body: new FormData() });
    expect(res.status).toBe(400);
    expect(typeof ((await res.json()) as { detail: unknown }).detail).toBe('string');
  });
});

describe('the no-weights workflow (image-filter) end to end', () => {
  let promptId: string;
  let seeds: Record<string, number>;
  let markerWhileRunning: boolean;
  let statusWhileRunning: Record<string, unknown> | undefined;
  let resultWhileRunning: number;

  beforeAll(async () => {
    const image = await uploadSample(t.api, 'filter-source.png');
    const result = await execute(t.api, 'image-filter', { params: { _existing_input_image: image, strength: 0.5, blur_radius: 2 } });
    promptId = result.prompt_id;
    seeds = result.seeds;
    expect(result.client_id).toBe(t.studio.engineSocket.clientId);
    // Look at the job while it runs: its nodes report no steps (as on the real engine), so wait
    // for the first finished node.
    await until(() => ws.ofType('job.progress').find((f) => f.data.prompt_id === promptId && (f.data.progress as Progress).nodes_done > 0), 'a node done');
    const job = t.studio.jobs.get(promptId)!;
    markerWhileRunning = fs.existsSync(path.join(outputDir(), job.output_dir!, '.incomplete'));
    statusWhileRunning = (await (await t.api(`/api/run/status/${promptId}`)).json()) as Record<string, unknown>;
    resultWhileRunning = (await t.api(`/api/run/result/${promptId}`)).status;
    await waitForJob(t.api, promptId);
    await until(() => ws.ofType('job.completed').some(forPrompt(promptId)), 'job.completed frame');
  });

  it('resolves the -1 seed and returns it', () => {
    expect(Object.keys(seeds)).toEqual(['seed']);
    expect(Number.isSafeInteger(seeds.seed)).toBe(true);
    expect(seeds.seed).toBeGreaterThanOrEqual(0);
    expect(t.studio.jobs.get(promptId)?.seeds).toEqual(seeds);
    expect(t.studio.jobs.get(promptId)?.params.seed).toBe(seeds.seed);
  });

  it('keeps .incomplete while running, reports running status and no result yet', () => {
    expect(markerWhileRunning).toBe(true);
    expect(resultWhileRunning).toBe(404);
    expect(statusWhileRunning).toMatchObject({ status: 'running' });
    for (const key of PROGRESS_KEYS) expect(statusWhileRunning).toHaveProperty(key);
    expect(statusWhileRunning!.percent as number).toBeLessThanOrEqual(99);
  });

  it('pushes job.queued, job.started, job.progress…, job.completed in that order', () => {
    const mine = ws.frames.filter((f) => f.type.startsWith('job.') && (f.data.prompt_id === promptId));
    const types = mine.map((f) => f.type);
    expect(types[0]).toBe('job.queued');
    const started = types.indexOf('job.started');
    const completed = types.indexOf('job.completed');
    expect(started).toBeGreaterThan(0);
    expect(completed).toBe(types.length - 1);
    expect(types.slice(started + 1, completed).every((ty) => ty === 'job.progress')).toBe(true);
    expect(types.filter((ty) => ty === 'job.progress').length).toBeGreaterThanOrEqual(3);
    expect(mine[0]!.data).toMatchObject({ prompt_id: promptId, status: 'queued', workflow_id: 'image-filter' });
    expect(mine[started]!.data).toMatchObject({ status: 'running' });
    expect(mine[completed]!.data).toMatchObject({ status: 'completed', workflow_id: 'image-filter' });
  });

  it('sends progress objects that satisfy the invariants', () => {
    const progress = ws.ofType('job.progress').filter(forPrompt(promptId)).map((f) => f.data.progress as Progress);
    for (const p of progress) for (const key of PROGRESS_KEYS) expect(p).toHaveProperty(key);
    const running = progress.filter((p) => p.status === 'running');
    expect(running.length).toBeGreaterThan(0);
    for (const p of running) {
      expect(p.percent).toBeGreaterThanOrEqual(0);
      expect(p.percent).toBeLessThanOrEqual(99);
    }
    for (let i = 1; i < progress.length; i++) expect(progress[i]!.percent).toBeGreaterThanOrEqual(progress[i - 1]!.percent);
    const last = progress.at(-1)!;
    expect(last.status).toBe('completed');
    expect(last.percent).toBe(100);
    expect(last.total_nodes).toBe(4);
    expect(last.effective_total).toBeLessThanOrEqual(4);
    // No node of this graph reports steps: progress moves node by node.
    expect(running.every((p) => p.total_steps === 0 || p.step === 0)).toBe(true);
    expect(new Set(running.map((p) => p.percent)).size).toBeGreaterThan(1);
    expect(last.node_outputs).toHaveProperty('4');
  });

  it('emits job.completed with "Job completed in <n>s" and prompt_id, workflow_id, duration', () => {
    const event = ws.ofType('event').find((f) => f.data.type === 'job.completed' && (f.data.data as { prompt_id?: string }).prompt_id === promptId);
    expect(event).toBeDefined();
    expect(event!.data.message).toMatch(/^Job completed in \d+s$/);
    expect(event!.data.severity).toBe('success');
    const data = event!.data.data as Record<string, unknown>;
    expect(data).toMatchObject({ prompt_id: promptId, workflow_id: 'image-filter' });
    expect(Number.isInteger(data.duration)).toBe(true);
    for (const type of ['job.queued', 'job.started']) {
      expect(ws.ofType('event').some((f) => f.data.type === type && (f.data.data as { prompt_id?: string }).prompt_id === promptId)).toBe(true);
    }
  });

  it('relays no previews: no node of this graph samples', () => {
    expect(ws.binary.map(decodeStudioPreview).filter((p) => p.meta.prompt_id === promptId)).toEqual([]);
  });

  it('writes the output into final/ and removes .incomplete', () => {
    const job = t.studio.jobs.get(promptId)!;
    expect(job.status).toBe('completed');
    expect(job.output_dir).toMatch(/^image-filter_\d{8}-\d{6}_[0-9a-f]{6}$/);
    // The folder's stamp is the box's own clock (a zone-less ISO string is read as local time), the instant of queued_at.
    const [, d, h] = /_(\d{8})-(\d{6})_/.exec(job.output_dir!)!;
    const folderStamp = `${d!.slice(0, 4)}-${d!.slice(4, 6)}-${d!.slice(6)}T${h!.slice(0, 2)}:${h!.slice(2, 4)}:${h!.slice(4)}`;
    expect(Math.abs(new Date(folderStamp).getTime() - parseLocalStamp(job.queued_at)!)).toBeLessThanOrEqual(2000);
    const folder = path.join(outputDir(), job.output_dir!);
    expect(fs.existsSync(path.join(folder, '.incomplete'))).toBe(false);
    const finals = fs.readdirSync(path.join(folder, 'final'));
    expect(finals).toEqual(['filtered_00001_.png']);
    expect(fs.readdirSync(path.join(folder, 'preview'))).toEqual([]);
    expect(job.output).toEqual({ filename: 'filtered_00001_.png', subfolder: `${job.output_dir}/final`, type: 'output' });
    expect(job.started_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    expect(job.finished_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    expect(job.input_image).toMatch(/^filter-source_/);
  });

  it('asks the engine for previews and embeds the editor workflow (extra_data)', async () => {
    const history = (await (await fetch(`${t.studio.engine.url}/history/${promptId}`)).json()) as Record<string, { prompt: unknown[] }>;
    const extra = history[promptId]!.prompt[3] as { preview_method: string; extra_pnginfo: { workflow: { nodes: Array<{ type: string }>; links: unknown[] } } };
    expect(extra.preview_method).toBe('auto');
    const graph = history[promptId]!.prompt[2] as Record<string, { class_type: string }>;
    expect(extra.extra_pnginfo.workflow.nodes.map((n) => n.type).sort()).toEqual(Object.values(graph).map((n) => n.class_type).sort());
    expect(extra.extra_pnginfo.workflow.links.length).toBeGreaterThan(0);
  });

  it('reports completed status with the outputs by kind', async () => {
    const job = t.studio.jobs.get(promptId)!;
    const res = await t.api(`/api/run/status/${promptId}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      status: 'completed',
      outputs: { image: { filename: 'filtered_00001_.png', subfolder: `${job.output_dir}/final`, type: 'output' } },
    });
  });

  it('streams the result inline with its Content-Type', async () => {
    const job = t.studio.jobs.get(promptId)!;
    const res = await t.api(`/api/run/result/${promptId}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-disposition')).toBe('inline; filename="filtered_00001_.png"');
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.equals(fs.readFileSync(path.join(outputDir(), job.output_dir!, 'final', 'filtered_00001_.png')))).toBe(true);
    const image = await t.api(`/api/run/result/${promptId}?output_type=image`);
    expect(image.status).toBe(200);
    await image.body?.cancel();
    expect((await t.api(`/api/run/result/${promptId}?output_type=audio`)).status).toBe(400);
  });

  it('serves the output through GET /api/engine/view', async () => {
    const job = t.studio.jobs.get(promptId)!;
    const q = new URLSearchParams({ filename: job.output!.filename, subfolder: job.output!.subfolder, type: 'output' });
    const res = await t.api(`/api/engine/view?${q.toString()}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.equals(fs.readFileSync(path.join(outputDir(), job.output_dir!, 'final', job.output!.filename)))).toBe(true);
  });
});

describe('a sampler workflow (txt2img-sdxl) with its checkpoint on disk', () => {
  it('reports 10 sampler steps with a rate and relays the previews tagged with the prompt', async () => {
    const { prompt_id } = await execute(t.api, 'txt2img-sdxl', { params: { positive: 'a fox in the snow', steps: 4 } });
    await waitForJob(t.api, prompt_id);
    await until(() => ws.ofType('job.completed').some(forPrompt(prompt_id)), 'job.completed frame');
    const running = ws.ofType('job.progress').filter(forPrompt(prompt_id)).map((f) => f.data.progress as Progress).filter((p) => p.status === 'running');
    const stepped = running.filter((p) => p.total_steps === 10);
    expect(stepped.length).toBeGreaterThan(0);
    expect(stepped.at(-1)!.step_rate).toBeGreaterThan(0);
    expect(stepped.at(-1)!.node_type).toBe('KSampler');
    const previews = ws.binary.map(decodeStudioPreview).filter((p) => p.meta.prompt_id === prompt_id);
    expect(previews.length).toBeGreaterThanOrEqual(1);
    for (const p of previews) {
      expect(p.kind).toBe(1);
      expect(p.meta.image_type).toBe('image/jpeg');
      // The KSampler of txt2img-sdxl is node 3.
      expect(p.meta.node_id).toBe('3');
      // A JPEG starts with FF D8.
      expect(p.image.subarray(0, 2).toString('hex')).toBe('ffd8');
    }
  });
});

describe('the video workflow (img2vid-wan, VHS_VideoCombine)', () => {
  it('runs end to end; the video is the primary output and the default result', async () => {
    const { prompt_id, seeds } = await execute(t.api, 'img2vid-wan', {
      params: { steps: 4, length: 9 },
      image: { data: fs.readFileSync(SAMPLE_PNG), name: 'still.png' },
    });
    expect(Object.keys(seeds)).toEqual(['seed']);
    const job = await waitForJob(t.api, prompt_id, ['completed', 'error']);
    expect(job.status).toBe('completed');
    const folder = job.output_dir as string;
    expect(job.output).toEqual({ filename: 'wan_i2v_00001.mp4', subfolder: `${folder}/final`, type: 'output' });
    // VHS also writes a first-frame PNG next to the video.
    expect(fs.readdirSync(path.join(outputDir(), folder, 'final')).sort()).toEqual(['wan_i2v_00001.mp4', 'wan_i2v_00001.png']);
    const status = (await (await t.api(`/api/run/status/${prompt_id}`)).json()) as { status: string; outputs: Record<string, { filename: string }> };
    expect(status.status).toBe('completed');
    expect(status.outputs.video?.filename).toBe('wan_i2v_00001.mp4');
    const video = await t.api(`/api/run/result/${prompt_id}`);
    expect(video.headers.get('content-type')).toBe('video/mp4');
    expect(video.headers.get('content-disposition')).toBe('inline; filename="wan_i2v_00001.mp4"');
    await video.body?.cancel();
    const still = await t.api(`/api/run/result/${prompt_id}?output_type=image`);
    expect(still.headers.get('content-type')).toBe('image/png');
    await still.body?.cancel();
  });
});

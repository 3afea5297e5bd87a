/**
 * The runner's answers against the stand-in engine: execute's validation and failures, the status
 * bodies, results and /api/engine/view errors, and what happens without a reachable engine.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProgressObject as Progress } from '../../../server/contracts/jobs.contract.js';
import { execute, executeRaw, jobRecord, plantModels, SAMPLE_PNG, SHIPPED_MODELS, uploadSample, waitForJob } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { connectStudioWs, until, type StudioWsClient, type WsFrame } from '../../helpers/studio-ws.js';
import { jobFixtures } from '../../helpers/job-fixtures.js';

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


describe('execute', () => {
  it('takes the image as a multipart input_image and keeps a given seed', async () => {
    const { prompt_id, seeds } = await execute(t.api, 'image-filter', {
      params: { seed: 42 },
      image: { data: fs.readFileSync(SAMPLE_PNG), name: 'direct.png' },
    });
    expect(seeds).toEqual({ seed: 42 });
    const job = await waitForJob(t.api, prompt_id);
    expect(job.input_image).toMatch(/^direct_\d{14}_[0-9a-f]{4}\.png$/);
    expect(fs.existsSync(path.join(t.dir, 'assets', 'input', job.input_image as string))).toBe(true);
    expect(job.seeds).toEqual({ seed: 42 });
    expect(job.params).toMatchObject({ seed: 42, image: job.input_image });
  });

  it('leaves cached nodes out of effective_total when the same inputs run again', async () => {
    const image = await uploadSample(t.api, 'cache.png');
    const params = { _existing_input_image: image, seed: 9 };
    await waitForJob(t.api, (await execute(t.api, 'image-filter', { params })).prompt_id);
    const { prompt_id } = await execute(t.api, 'image-filter', { params });
    await waitForJob(t.api, prompt_id);
    const last = await until(
      () => ws.ofType('job.progress').filter(forPrompt(prompt_id)).map((f) => f.data.progress as Progress).find((p) => p.status === 'completed'),
      'the completed progress',
    );
    // Load, noise and blur come from the engine's cache; only the (redirected) save node runs.
    expect(last).toMatchObject({ cached_count: 3, total_nodes: 4, effective_total: 1, percent: 100 });
  });

  it('answers 404 for an unknown workflow', async () => {
    const res = await executeRaw(t.api, 'no-such-workflow');
    expect(res.status).toBe(404);
    expect(((await res.json()) as { detail: string }).detail).toContain('no-such-workflow');
  });

  it('answers 400 for params that are not a JSON object, or a bad value', async () => {
    const form = new FormData();
    form.append('params', '{not json');
    const res = await t.api('/api/run/image-filter/execute', { method: 'POST', body: form });
    expect(res.status).toBe(400);
    const bad = await executeRaw(t.api, 'image-filter', { params: { _existing_input_image: 'x.png', blur_radius: 500 } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { detail: string }).detail).toContain('blur_radius');
  });

  it('validates the parameters before uploading: a 400 leaves no stray input file', async () => {
    const before = fs.readdirSync(path.join(t.dir, 'assets', 'input')).length;
    const res = await executeRaw(t.api, 'image-filter', {
      params: { blur_radius: 500 },
      image: { data: fs.readFileSync(SAMPLE_PNG), name: 'stray.png' },
    });
    expect(res.status).toBe(400);
    expect(fs.readdirSync(path.join(t.dir, 'assets', 'input'))).toHaveLength(before);
  });

  it('removes an image uploaded with a prompt the engine then rejects', async () => {
    // A workflow whose manifest leaves a value unbounded that the engine bounds (blur_radius ≤ 31).
    const dir = path.join(t.dir, 'workflows', 'loose-blur');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'manifest.yaml'),
      'id: loose-blur\nname: Loose blur\ntype: static\ncategory: image\ndescription: test\nauthor: test\nversion: 1\ndate: "2026-11-24 10:00"\n' +
        'inputs:\n  - id: image\n    type: image\n    label: Image\n    node_id: 1\n    field: image\n  - id: radius\n    type: int\n    label: Radius\n    node_id: 2\n    field: blur_radius\n    default: 3\n' +
        'outputs:\n  - type: image\n    format: png\nrequired_models: []\nrequired_nodes: []\n',
    );
    fs.writeFileSync(
      path.join(dir, 'workflow.json'),
      JSON.stringify({
        1: { class_type: 'LoadImage', inputs: { image: '{{image}}' } },
        2: { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: '{{radius}}', sigma: 1 } },
        3: { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'loose' } },
      }),
    );
    const before = fs.readdirSync(path.join(t.dir, 'assets', 'input')).sort();
    const res = await executeRaw(t.api, 'loose-blur', { params: { radius: 500 }, image: { data: fs.readFileSync(SAMPLE_PNG), name: 'refused.png' } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/blur_radius/);
    expect(fs.readdirSync(path.join(t.dir, 'assets', 'input')).sort()).toEqual(before);
  });

  it('answers 400 with the engine node errors inside detail when the engine rejects the graph', async () => {
    const before = t.studio.jobs.count();
    const res = await executeRaw(t.api, 'image-filter', { params: { _existing_input_image: 'missing-file.png' } });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { detail: string; error: { type: string }; node_errors: Record<string, { class_type: string; errors: unknown[] }> };
    // detail stays a string (the one error shape) and says in words what is wrong, without the engine's jargon…
    expect(body.detail).toBe('This job cannot run. The input file “missing-file.png” is not there any more: pick or upload it again.');
    // …while the engine's structured errors travel beside it for programs.
    expect(body.error.type).toBe('prompt_outputs_failed_validation');
    expect(body.node_errors['1']?.class_type).toBe('LoadImage');
    expect(body.node_errors['1']?.errors.length).toBeGreaterThan(0);
    // Nothing is left behind for a prompt the engine never took.
    expect(t.studio.jobs.count()).toBe(before);
  });

  it('a failing node gives status error, error "[NodeType] message" and job.failed', async () => {
    const { prompt_id } = await execute(t.api, 'txt2img-sdxl', { params: { positive: 'a fox STANDIN_FAIL', steps: 2 } });
    const job = await waitForJob(t.api, prompt_id, ['error', 'completed']);
    expect(job.status).toBe('error');
    expect(job.error).toBe('[CLIPTextEncode] Stand-in failure requested by input text');
    const status = (await (await t.api(`/api/run/status/${prompt_id}`)).json()) as Record<string, unknown>;
    expect(status).toEqual({ status: 'error', prompt_id, error: job.error });
    await until(() => ws.ofType('job.failed').find(forPrompt(prompt_id)), 'job.failed frame');
    const event = await until(
      () => ws.ofType('event').find((f) => f.data.type === 'job.failed' && (f.data.data as { prompt_id?: string }).prompt_id === prompt_id),
      'job.failed event',
    );
    expect(event.data.severity).toBe('error');
    expect((event.data.data as { error?: string }).error).toBe(job.error);
    const folder = path.join(outputDir(), job.output_dir as string);
    expect(fs.existsSync(path.join(folder, '.incomplete'))).toBe(false);
    expect((await t.api(`/api/run/result/${prompt_id}`)).status).toBe(404);
    expect(ws.ofType('job.completed').some(forPrompt(prompt_id))).toBe(false);
  });
});

describe('GET /api/run/status/{id}', () => {
  it('reports pending for a job queued behind another, then completed', async () => {
    const image = await uploadSample(t.api);
    const first = await execute(t.api, 'image-filter', { params: { _existing_input_image: image } });
    const second = await execute(t.api, 'image-filter', { params: { _existing_input_image: image } });
    const pending = (await (await t.api(`/api/run/status/${second.prompt_id}`)).json()) as Record<string, unknown>;
    expect(pending).toEqual({ status: 'pending', prompt_id: second.prompt_id, queue_position: 1 });
    await waitForJob(t.api, first.prompt_id);
    await waitForJob(t.api, second.prompt_id);
    const done = (await (await t.api(`/api/run/status/${second.prompt_id}`)).json()) as Record<string, unknown>;
    expect(done.status).toBe('completed');
  });

  it('answers 200 pending for a prompt nobody knows, as the spec says', async () => {
    const res = await t.api('/api/run/status/00000000-0000-4000-8000-000000000000');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'pending', prompt_id: '00000000-0000-4000-8000-000000000000', queue_position: null });
  });
});

describe('GET /api/run/result/{id} and /api/engine/view errors', () => {
  it('answers 404 for an unknown job', async () => {
    expect((await t.api('/api/run/result/nope')).status).toBe(404);
  });

  it('streams a result through the engine when the job folder is not on this disk', async () => {
    const name = await uploadSample(t.api, 'remote.png');
    jobFixtures(t.studio).insert(
      jobRecord({
        prompt_id: 'remote-output-1',
        workflow_id: 'image-filter',
        workflow_name: 'Image noise and blur',
        output_dir: 'not-on-this-disk',
        status: 'completed',
        duration: 1,
        output: { filename: name, subfolder: '', type: 'input' },
      }),
    );
    const res = await t.api('/api/run/result/remote-output-1');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="${name}"`);
    expect(Buffer.from(await res.arrayBuffer()).equals(fs.readFileSync(SAMPLE_PNG))).toBe(true);
    jobFixtures(t.studio).delete(['remote-output-1']);
    jobFixtures(t.studio).insert(
      jobRecord({ prompt_id: 'remote-output-1', workflow_id: 'image-filter', output_dir: 'not-on-this-disk', status: 'completed', output: { filename: 'gone.png', subfolder: '', type: 'input' } }),
    );
    expect((await t.api('/api/run/result/remote-output-1')).status).toBe(404);
  });

  it('answers 404 for a file the engine does not have, 400 without filename', async () => {
    const missing = await t.api('/api/engine/view?filename=nothing-here.png&type=output');
    expect(missing.status).toBe(404);
    expect(typeof ((await missing.json()) as { detail: unknown }).detail).toBe('string');
    expect((await t.api('/api/engine/view')).status).toBe(400);
  });

  it('serves input files by default (type=input)', async () => {
    const name = await uploadSample(t.api, 'view-me.png');
    const res = await t.api(`/api/engine/view?filename=${encodeURIComponent(name)}`);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(fs.readFileSync(SAMPLE_PNG))).toBe(true);
  });
});

describe('without a reachable engine', () => {
  let offline: TestStudio;
  beforeAll(async () => {
    offline = await startTestStudio({ startEngine: false });
  });
  afterAll(async () => {
    await offline?.stop();
  });

  it('view answers 404, execute and upload 500, workflows still list', async () => {
    expect((await offline.api('/api/engine/view?filename=a.png')).status).toBe(404);
    const res = await executeRaw(offline.api, 'image-filter', {
      params: { seed: 1 },
      image: { data: fs.readFileSync(SAMPLE_PNG), name: 'a.png' },
    });
    expect(res.status).toBe(500);
    const noImage = await executeRaw(offline.api, 'txt2img-sdxl', { params: {} });
    expect(noImage.status).toBe(500);
    expect(((await noImage.json()) as { detail: string }).detail).toMatch(/[Ee]ngine/);
    expect(offline.studio.jobs.count()).toBe(0);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(fs.readFileSync(SAMPLE_PNG))]), 'a.png');
    expect((await offline.api('/api/run/upload-image', { method: 'POST', body: form })).status).toBe(500);
    const list = await offline.api('/api/admin/workflows');
    expect(list.status).toBe(200);
  });
});

/**
 * The engine's own API served by Studio (issue 44), driven by the two npm client libraries,
 * unchanged, as their READMEs show them, against the stand-in engine: text-to-image with the
 * SDK's PromptBuilder and CallWrapper, an upload plus image-to-image, a pool of jobs, and the other
 * library (which opens its socket at `/ws`, so it takes the door's own port). Every job is a Studio
 * job with its outputs in a job folder. Keys: none, a wrong one, a read-only one: 401, 401, 403.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { CallWrapper, ComfyApi, ComfyPool, EQueueMode, PromptBuilder } from '@saintno/comfyui-sdk';
import { Client, plugins } from '@stable-canvas/comfyui-client';
import { plantModels, SAMPLE_PNG } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { until } from '../../helpers/studio-ws.js';
import { freePort } from '../../helpers/ports.js';
import { addPerson, as, signIn } from '../../helpers/people.js';
import { T2I, I2I } from './graphs.js';

let t: TestStudio;
let doorPort: number;
/** The owner's first prompt and its image (another person may see neither). */
let ownerPrompt: { id: string; image: { filename: string; subfolder: string; type: string } } | null = null;
const sdks: ComfyApi[] = [];

const sdk = (clientId?: string) => {
  const api = new ComfyApi(`${t.url}/comfy`, clientId, { credentials: { type: 'bearer_token', token: t.apiKey } });
  sdks.push(api);
  return api;
};

beforeAll(async () => {
  doorPort = await freePort();
  t = await startTestStudio({ startEngine: true, env: { STANDIN_STEP_MS: '30', STANDIN_NODE_MS: '10', COMFY_API: 'on', COMFY_API_PORT: String(doorPort) } });
  plantModels(t.dir, { checkpoints: ['sd_xl_base_1.0.safetensors'] });
  await until(async () => (await t.studio.engineModule.client.queue().catch(() => null)) !== null, 'the stand-in', 30_000);
}, 60_000);

afterAll(async () => {
  for (const api of sdks) api.destroy();
  await t?.stop();
});

const t2i = (api: ComfyApi, text: string) =>
  new PromptBuilder(T2I, ['positive', 'checkpoint', 'seed', 'step'], ['images'])
    .setInputNode('checkpoint', '4.inputs.ckpt_name')
    .setInputNode('seed', '3.inputs.seed')
    .setInputNode('positive', '6.inputs.text')
    .setInputNode('step', '3.inputs.steps')
    .setOutputNode('images', '9')
    .input('checkpoint', 'sd_xl_base_1.0.safetensors', api.osType)
    .input('seed', 42)
    .input('step', 6)
    .input('positive', text);

describe("the engine's API through Studio, with @saintno/comfyui-sdk", () => {
  it('runs text-to-image: progress and the images arrive through the library, and the job is in Studio history', async () => {
    const api = await sdk().init().waitForReady();
    const progress: number[] = [];
    const done = await new Promise<{ id: string; images: Array<{ filename: string; subfolder: string; type: string }> }>((resolve, reject) => {
      void new CallWrapper(api, t2i(api, 'a cat on a street'))
        .onProgress((p) => progress.push(p.value))
        .onFinished((data, id) => resolve({ id: id!, images: (data.images as { images: Array<{ filename: string; subfolder: string; type: string }> }).images }))
        .onFailed((err) => reject(err))
        .run();
    });
    expect(progress.length).toBeGreaterThan(0);
    expect(done.images.length).toBe(1);
    ownerPrompt = { id: done.id, image: done.images[0]! };
    const image = await fetch(api.getPathImage(done.images[0]!), { headers: { Authorization: `Bearer ${t.apiKey}` } });
    expect(image.status).toBe(200);
    expect((await image.arrayBuffer()).byteLength).toBeGreaterThan(0);
    // The library is done at the last output's `executed`; the job ends a moment later.
    const job = await until(() => (t.studio.jobs.get(done.id)?.status === 'completed' ? t.studio.jobs.get(done.id) : null), 'the job completed');
    expect(job.workflow_name).toBe('ComfyUI API');
    expect(fs.readdirSync(`${t.dir}/assets/output/${job.output_dir}/final`).length).toBe(1);
    const history = (await api.getHistory(done.id)) as { status: { completed: boolean }; outputs: Record<string, unknown> };
    expect(history.status.completed).toBe(true);
    expect(Object.keys(history.outputs)).toEqual(['9']);
  }, 30_000);

  it('uploads an image and runs image-to-image on it', async () => {
    const api = await sdk().init().waitForReady();
    const uploaded = await api.uploadImage(fs.readFileSync(SAMPLE_PNG), 'photo.png');
    expect(uploaded).not.toBe(false);
    const name = (uploaded as { info: { filename: string } }).info.filename;
    const workflow = new PromptBuilder(I2I, ['image', 'checkpoint'], ['images'])
      .setInputNode('image', '10.inputs.image')
      .setInputNode('checkpoint', '4.inputs.ckpt_name')
      .setOutputNode('images', '9')
      .input('image', name)
      .input('checkpoint', 'sd_xl_base_1.0.safetensors');
    const images = await new Promise<unknown[]>((resolve, reject) => {
      void new CallWrapper(api, workflow)
        .onFinished((data) => resolve((data.images as { images: unknown[] }).images))
        .onFailed((err) => reject(err))
        .run();
    });
    expect(images.length).toBe(1);
  }, 30_000);

  it('interrupts a running prompt through the library: it hears execution_interrupted, and the job is cancelled', async () => {
    const api = await sdk().init().waitForReady();
    const long = t2i(api, 'a long one').input('step', 60);
    const failed = new Promise<{ name: string; id?: string }>((resolve) => {
      void new CallWrapper(api, long)
        .onStart(() => void api.interrupt())
        .onFinished(() => resolve({ name: 'finished' }))
        .onFailed((err, id) => resolve({ name: err.name, id }))
        .run();
    });
    const result = await failed;
    expect(result.name).toBe('ExecutionInterruptedError');
    await until(() => t.studio.jobs.get(result.id!)?.status === 'cancelled', 'the job cancelled');
  }, 30_000);

  it('runs a pool of jobs (ComfyPool batch) to the end', async () => {
    const pool = new ComfyPool([sdk()], EQueueMode.PICK_ZERO);
    const run = (api: ComfyApi) =>
      new Promise<string>((resolve, reject) => {
        void new CallWrapper(api, t2i(api, 'a dog'))
          .onFinished((_data, id) => resolve(id!))
          .onFailed((err) => reject(err))
          .run();
      });
    const ids = await pool.batch(Array(4).fill(run) as Array<(api: ComfyApi) => Promise<string>>);
    expect(new Set(ids).size).toBe(4);
    await until(() => ids.every((id) => t.studio.jobs.get(id)?.status === 'completed'), 'every job completed');
    pool.destroy();
  }, 60_000);

  it('answers a prompt no engine can run with the engine\'s own 400 body', async () => {
    const graph = structuredClone(T2I);
    graph['4']!.inputs.ckpt_name = 'missing.safetensors';
    const res = await fetch(`${t.url}/comfy/prompt`, { method: 'POST', headers: { 'X-API-Key': t.apiKey }, body: JSON.stringify({ prompt: graph }) });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { type: string }; node_errors: Record<string, { errors: Array<{ type: string }> }> };
    expect(body.error.type).toBe('prompt_outputs_failed_validation');
    expect(body.node_errors['4']?.errors[0]?.type).toBe('value_not_in_list');
  });
});

describe("the engine's API through Studio, with @stable-canvas/comfyui-client", () => {
  it('runs a workflow on the door\'s own port, authenticated by its token plugin', async () => {
    const client = new Client({ api_host: `127.0.0.1:${doorPort}`, WebSocket: WebSocket as never, fetch });
    client.use(new plugins.LoginAuthPlugin({ token: t.apiKey }));
    await Promise.all([client.getSystemStats(), client.connect()]);
    const progress: number[] = [];
    const out = await client.enqueue(T2I, { progress: ({ value }: { value: number }) => progress.push(value) });
    client.close();
    expect(progress.length).toBeGreaterThan(0);
    expect(out.images.length).toBeGreaterThan(0);
    // The library is done at the first `executed`; the job ends a moment later.
    await until(() => t.studio.jobs.get(out.prompt_id)?.status === 'completed', 'the job completed');
  }, 30_000);
});

describe('keys on the door', () => {
  it('401 without a key or with a wrong one, 403 for a read-only key on POST /prompt; reads pass', async () => {
    const body = JSON.stringify({ prompt: T2I });
    expect((await fetch(`${t.url}/comfy/prompt`, { method: 'POST', body })).status).toBe(401);
    expect((await fetch(`${t.url}/comfy/prompt`, { method: 'POST', body, headers: { Authorization: 'Bearer wrong-key-000000' } })).status).toBe(401);
    const viewer = await addPerson(t, 'vera', 'viewer');
    const cookie = await signIn(t, viewer);
    const keyRes = await as(t, { cookie }, '/api/me/keys', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'tool', scope: 'read' }) });
    const key = ((await keyRes.json()) as { key: string }).key;
    const basic = `Basic ${Buffer.from(`anyone:${key}`).toString('base64')}`;
    expect((await fetch(`${t.url}/comfy/prompt`, { method: 'POST', body, headers: { Authorization: basic } })).status).toBe(403);
    expect((await fetch(`${t.url}/comfy/api/queue`, { headers: { Authorization: basic } })).status).toBe(200);
    expect((await fetch(`${t.url}/comfy/queue?token=${key}`)).status).toBe(200);
    // The token and Bearer ways stay on the door: Studio's own API does not take them.
    expect((await fetch(`${t.url}/api/admin/queue?token=${t.apiKey}`)).status).toBe(401);
  });

  it("shows a member neither the owner's prompts nor their files", async () => {
    const member = await addPerson(t, 'max', 'member');
    const cookie = await signIn(t, member);
    const key = ((await (await as(t, { cookie }, '/api/me/keys', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'tool', scope: 'run' }) })).json()) as { key: string }).key;
    const headers = { Authorization: `Bearer ${key}` };
    const { id, image } = ownerPrompt!;
    expect(await (await fetch(`${t.url}/comfy/history/${id}`, { headers })).json()).toEqual({});
    expect(Object.keys((await (await fetch(`${t.url}/comfy/history`, { headers })).json()) as object)).toEqual([]);
    const view = `filename=${encodeURIComponent(image.filename)}&subfolder=${encodeURIComponent(image.subfolder)}&type=output`;
    expect((await fetch(`${t.url}/comfy/view?${view}`, { headers })).status).toBe(404);
    expect((await fetch(`${t.url}/comfy/view?${view}`, { headers: { 'X-API-Key': t.apiKey } })).status).toBe(200);
    // A bare interrupt stops only the caller's own: the owner's finished prompt stays completed, nothing errs.
    expect((await fetch(`${t.url}/comfy/interrupt`, { method: 'POST', headers })).status).toBe(200);
  });

  it('is not there when turned off', async () => {
    const off = await t.api('/api/admin/comfy-api', { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ enabled: false }) });
    // COMFY_API=on wins over the page.
    expect(((await off.json()) as { enabled: boolean; forced_by_env: boolean }).forced_by_env).toBe(true);
  });
});

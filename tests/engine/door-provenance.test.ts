/**
 * Issues 44 and 46 against the real engine (ComfyUI 0.29.0 on this CPU, ../shared/real-engine/):
 * the engine's own API served by Studio, driven by both npm client libraries unchanged (text to
 * image on the random-weight SD 1.5 checkpoint of sd15-checkpoint.ts, and an upload run through a
 * no-weights graph): progress and images arrive through the libraries' own events and the jobs
 * are in Studio's history. And provenance: the real SaveImage's output carries the A1111
 * `parameters` text beside the engine's own `prompt`/`workflow` chunks, and a job run again on the
 * unchanged box gives the same image, byte for byte (text chunks aside), with weights and without.
 * Needs ENGINE_DIR + ENGINE_PYTHON of the real engine.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { CallWrapper, ComfyApi, PromptBuilder } from '@saintno/comfyui-sdk';
import { Client, plugins } from '@stable-canvas/comfyui-client';
import { freePort } from '../helpers/ports.js';
import { execute, SAMPLE_PNG, uploadSample, waitForJob } from '../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';
import { parseInfotext } from '../helpers/a1111-infotext.js';
import { withoutText } from '../helpers/provenance-setup.js';
import { pngTextChunks } from './png-text.js';
import { SD15_FILE, sd15Checkpoint, writeTokenizersFix } from './sd15-checkpoint.js';

const engineDir = process.env.ENGINE_DIR;
const enginePython = process.env.ENGINE_PYTHON;
const available = Boolean(engineDir && enginePython);
if (!available) console.warn('[test:engine] the engine API and provenance: skipped, no real engine given (ENGINE_DIR + ENGINE_PYTHON)');

let root: string;
let t: TestStudio;
let doorPort: number;
const sdks: ComfyApi[] = [];

type Graph = Record<string, { class_type: string; inputs: Record<string, unknown>; _meta: { title: string } }>;
const titled = (graph: Record<string, { class_type: string; inputs: Record<string, unknown> }>): Graph =>
  Object.fromEntries(Object.entries(graph).map(([id, node]) => [id, { ...node, _meta: { title: node.class_type } }]));

/** The engine's default text-to-image graph, small: 64×64, three steps. */
const T2I = titled({
  '3': { class_type: 'KSampler', inputs: { seed: 7, steps: 3, cfg: 5, sampler_name: 'euler', scheduler: 'normal', denoise: 1, model: ['4', 0], positive: ['6', 0], negative: ['7', 0], latent_image: ['5', 0] } },
  '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: SD15_FILE } },
  '5': { class_type: 'EmptyLatentImage', inputs: { width: 64, height: 64, batch_size: 1 } },
  '6': { class_type: 'CLIPTextEncode', inputs: { text: 'a lighthouse', clip: ['4', 1] } },
  '7': { class_type: 'CLIPTextEncode', inputs: { text: 'blurry', clip: ['4', 1] } },
  '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] } },
  '9': { class_type: 'SaveImage', inputs: { filename_prefix: 'ComfyUI', images: ['8', 0] } },
});

/** A graph with no weights: the uploaded image blurred and saved. */
const BLUR = (image: string) =>
  titled({
    '1': { class_type: 'LoadImage', inputs: { image } },
    '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 3, sigma: 1 } },
    '3': { class_type: 'SaveImage', inputs: { filename_prefix: 'blurred', images: ['2', 0] } },
  });

const finalPng = (promptId: string): Buffer => {
  const job = t.studio.jobs.get(promptId)!;
  const final = path.join(t.dir, 'assets', 'output', job.output_dir!, 'final');
  const name = fs.readdirSync(final).find((f) => f.endsWith('.png'))!;
  return fs.readFileSync(path.join(final, name));
};

beforeAll(async () => {
  if (!available) return;
  // Beside the engine: a chrooted engine sees only its own tree.
  root = fs.mkdtempSync(path.join(path.dirname(engineDir!), 'studio-test-door-'));
  const userBase = writeTokenizersFix(root, enginePython!);
  const checkpoint = sd15Checkpoint(engineDir!, enginePython!, path.join(root, 'make'), userBase);
  const dir = path.join(root, 'studio');
  fs.mkdirSync(path.join(dir, 'models', 'checkpoints'), { recursive: true });
  fs.copyFileSync(checkpoint.file, path.join(dir, 'models', 'checkpoints', SD15_FILE));
  doorPort = await freePort();
  t = await startTestStudio({
    dir,
    startEngine: true,
    env: {
      ENGINE_MODE: 'managed',
      ENGINE_DIR: engineDir!,
      ENGINE_PYTHON: enginePython!,
      ENGINE_PORT: String(await freePort()),
      COMFY_API: 'on',
      COMFY_API_PORT: String(doorPort),
      PATH: process.env.PATH ?? '/usr/bin',
      HOME: root,
      PYTHONUSERBASE: userBase,
    },
  });
  await t.studio.engineReady(150_000);
}, 900_000);

afterAll(async () => {
  for (const api of sdks) api.destroy();
  await t?.stop();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

describe.skipIf(!available)("the engine's API through Studio, on the real engine", () => {
  it('runs text to image with @saintno/comfyui-sdk: progress and the image through the library, the job in Studio', async () => {
    const api = new ComfyApi(`${t.url}/comfy`, undefined, { credentials: { type: 'bearer_token', token: t.apiKey } });
    sdks.push(api);
    await api.init().waitForReady();
    const workflow = new PromptBuilder(T2I, ['positive', 'seed'], ['images']).setInputNode('positive', '6.inputs.text').setInputNode('seed', '3.inputs.seed').setOutputNode('images', '9').input('positive', 'a red fox').input('seed', 11);
    const progress: number[] = [];
    const done = await new Promise<{ id: string; images: Array<{ filename: string; subfolder: string; type: string }> }>((resolve, reject) => {
      void new CallWrapper(api, workflow)
        .onProgress((p) => progress.push(p.value))
        .onFinished((data, id) => resolve({ id: id!, images: (data.images as { images: Array<{ filename: string; subfolder: string; type: string }> }).images }))
        .onFailed((err) => reject(err))
        .run();
    });
    expect(progress).toEqual(expect.arrayContaining([1, 3]));
    expect(done.images).toHaveLength(1);
    const image = await fetch(api.getPathImage(done.images[0]!), { headers: { Authorization: `Bearer ${t.apiKey}` } });
    expect(image.status).toBe(200);
    expect((await sharp(Buffer.from(await image.arrayBuffer())).metadata()).width).toBe(64);
    const job = await waitForJob(t.api, done.id, ['completed'], 120_000);
    expect(job.workflow_name).toBe('ComfyUI API');
    const history = (await api.getHistory(done.id)) as { status: { completed: boolean }; outputs: Record<string, unknown> };
    expect(history.status.completed).toBe(true);
  }, 600_000);

  it('uploads an image (the SDK) and runs a no-weights graph on it with @stable-canvas/comfyui-client on the door port', async () => {
    // The second library has no upload of its own: the image goes up through the first.
    const uploaded = await sdks[0]!.uploadImage(fs.readFileSync(SAMPLE_PNG), `door-${crypto.randomUUID().slice(0, 8)}.png`);
    expect(uploaded).not.toBe(false);
    const client = new Client({ api_host: `127.0.0.1:${doorPort}`, WebSocket: WebSocket as never, fetch });
    client.use(new plugins.LoginAuthPlugin({ token: t.apiKey }));
    await Promise.all([client.getSystemStats(), client.connect()]);
    const out = await client.enqueue(BLUR((uploaded as { info: { filename: string } }).info.filename), {});
    client.close();
    expect(out.images.length).toBe(1);
    const job = await waitForJob(t.api, out.prompt_id, ['completed'], 120_000);
    expect(job.status).toBe('completed');
  }, 300_000);
});

describe.skipIf(!available)('provenance on the real engine', () => {
  it("writes the parameters beside the engine's own chunks, and a run again gives the same image", async () => {
    const params = { positive: 'a red fox in the snow', negative: 'blurry', width: 64, height: 64, steps: 3, cfg: 5, seed: 42 };
    const first = (await execute(t.api, 'txt2img-sd15', { params })).prompt_id;
    await waitForJob(t.api, first, ['completed'], 600_000);
    const png = finalPng(first);
    const chunks = pngTextChunks(png);
    const info = parseInfotext(chunks.parameters ?? '');
    expect(info.prompt).toBe(params.positive);
    expect(info.negative).toBe(params.negative);
    expect(info.fields).toMatchObject({ Steps: '3', 'CFG scale': '5', Seed: '42' });
    expect([info.width, info.height]).toEqual([64, 64]);
    const sha = crypto.createHash('sha256').update(fs.readFileSync(path.join(t.dir, 'models', 'checkpoints', SD15_FILE))).digest('hex');
    expect(info.fields['Model hash']).toBe(sha.slice(0, 10));
    // The engine's own chunks: the graph it ran, and the editor workflow Studio sent.
    expect(Object.values(JSON.parse(chunks.prompt!) as Record<string, { class_type: string }>).map((n) => n.class_type)).toContain('KSampler');
    expect((JSON.parse(chunks.workflow!) as { nodes: unknown[] }).nodes.length).toBeGreaterThan(0);
    expect((await sharp(png).metadata()).width).toBe(64);

    const again = await t.api(`/api/admin/history/${first}/run-again`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(again.status).toBe(200);
    const answer = (await again.json()) as { status: string; prompt_id: string; differences: unknown[] };
    // Nothing differs on the same box: it runs at once.
    expect(answer.status, JSON.stringify(answer.differences)).toBe('queued');
    const second = answer.prompt_id;
    await waitForJob(t.api, second, ['completed'], 600_000);
    expect(withoutText(finalPng(second)).equals(withoutText(png))).toBe(true);
  }, 900_000);

  it('gives the same image again for a no-weights workflow', async () => {
    const image = await uploadSample(t.api, 'provenance-real.png');
    const { prompt_id } = await execute(t.api, 'image-filter', { params: { _existing_input_image: image, strength: 0.2, blur_radius: 3 } });
    await waitForJob(t.api, prompt_id, ['completed'], 120_000);
    const again = await t.api(`/api/admin/history/${prompt_id}/run-again`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    const answer = (await again.json()) as { status: string; prompt_id: string; differences: unknown[] };
    expect(answer.status, JSON.stringify(answer.differences)).toBe('queued');
    await waitForJob(t.api, answer.prompt_id, ['completed'], 120_000);
    const a = finalPng(prompt_id);
    expect(pngTextChunks(a).prompt).toBeTruthy();
    expect(withoutText(finalPng(answer.prompt_id)).equals(withoutText(a))).toBe(true);
  }, 300_000);
});

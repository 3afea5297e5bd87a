/**
 * A real sampler run in the real engine (ComfyUI 0.29.0 on this CPU): the shipped SD 1.5
 * text-to-image workflow with a random-weight checkpoint the engine's own loader takes for SD 1.5
 * (sd15-checkpoint.ts; the smallest such model, made once and cached), at 64×64 and 3 steps. The
 * engine loads the checkpoint, encodes both prompts with CLIP, samples with live progress and
 * latent previews, decodes with the VAE, and saves a PNG into the job folder carrying the workflow.
 * The picture is noise (the weights are random); everything that made it is the real thing.
 * Needs ENGINE_DIR + ENGINE_PYTHON of the real engine (../shared/real-engine/).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/ports.js';
import { execute, waitForJob } from '../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';
import { connectStudioWs, decodeStudioPreview, type StudioWsClient } from '../helpers/studio-ws.js';
import { pngTextChunks } from './png-text.js';
import { SD15_FILE, sd15Checkpoint, writeTokenizersFix } from './sd15-checkpoint.js';

const engineDir = process.env.ENGINE_DIR;
const enginePython = process.env.ENGINE_PYTHON;
const available = Boolean(engineDir && enginePython);
if (!available) console.warn('[test:engine] SD 1.5 sampler run: skipped, no real engine given (ENGINE_DIR + ENGINE_PYTHON)');

const STEPS = 3;
let root: string;
let t: TestStudio;
let ws: StudioWsClient;

beforeAll(async () => {
  if (!available) return;
  // Beside the engine: a chrooted engine sees only its own tree.
  root = fs.mkdtempSync(path.join(path.dirname(engineDir!), 'studio-test-sd15-'));
  const userBase = writeTokenizersFix(root, enginePython!);
  const checkpoint = sd15Checkpoint(engineDir!, enginePython!, path.join(root, 'make'), userBase);
  if (checkpoint.made) console.log(`[test:engine] SD 1.5 checkpoint made in ${checkpoint.made.seconds.toFixed(1)} s: ${checkpoint.made.line}`);
  const dir = path.join(root, 'studio');
  fs.mkdirSync(path.join(dir, 'models', 'checkpoints'), { recursive: true });
  const target = path.join(dir, 'models', 'checkpoints', SD15_FILE);
  try {
    fs.linkSync(checkpoint.file, target);
  } catch {
    fs.copyFileSync(checkpoint.file, target);
  }
  t = await startTestStudio({
    dir,
    startEngine: true,
    env: { ENGINE_MODE: 'managed', ENGINE_DIR: engineDir!, ENGINE_PYTHON: enginePython!, ENGINE_PORT: String(await freePort()), PATH: process.env.PATH ?? '/usr/bin', HOME: root, PYTHONUSERBASE: userBase },
  });
  await t.studio.engineReady(150_000);
  ws = await connectStudioWs(t.url, t.apiKey);
}, 900_000);

afterAll(async () => {
  await ws?.close();
  await t?.stop();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

describe.skipIf(!available)('SD 1.5 text to image in the real engine', () => {
  it('samples with progress and previews, decodes, and saves a PNG carrying the workflow', async () => {
    const started = Date.now();
    const { prompt_id } = await execute(t.api, 'txt2img-sd15', { params: { positive: 'a red fox in the snow', negative: 'blurry', width: 64, height: 64, steps: STEPS, cfg: 5, seed: 42 } });
    const job = await waitForJob(t.api, prompt_id, ['completed', 'error'], 600_000);
    expect(t.studio.jobs.get(prompt_id)!.error ?? null).toBeNull();
    expect(job.status).toBe('completed');
    const seconds = (Date.now() - started) / 1000;

    // The sampler's own steps, as the engine reported them.
    const progress = ws.ofType('job.progress').filter((f) => f.data.prompt_id === prompt_id).map((f) => f.data.progress as { node_type: string | null; step: number; total_steps: number });
    const sampling = progress.filter((p) => p.node_type === 'KSampler' && p.total_steps === STEPS);
    expect(sampling.map((p) => p.step)).toEqual(expect.arrayContaining([1, STEPS]));
    // Latent previews of the sampling, relayed as binary frames tagged with the prompt.
    const previews = ws.binary.map((frame) => decodeStudioPreview(frame)).filter((frame) => frame.meta.prompt_id === prompt_id);
    expect(previews.length).toBeGreaterThan(0);
    const image = previews[0]!.image;
    expect(image.subarray(0, 2).equals(Buffer.from([0xff, 0xd8])) || image.subarray(1, 4).toString('latin1') === 'PNG').toBe(true);

    // The decoded image: a 64×64 PNG in the job folder, with the graph the engine ran.
    const record = t.studio.jobs.get(prompt_id)!;
    const file = path.join(t.dir, 'assets', 'output', record.output_dir!, 'final', 'sd15_00001_.png');
    const png = fs.readFileSync(file);
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([64, 64]);
    const chunks = pngTextChunks(png);
    const workflow = JSON.parse(chunks.workflow!) as { nodes: Array<{ type: string }> };
    expect(workflow.nodes.map((n) => n.type).sort()).toEqual(['CLIPTextEncode', 'CLIPTextEncode', 'CheckpointLoaderSimple', 'EmptyLatentImage', 'KSampler', 'SaveImage', 'VAEDecode']);
    expect(JSON.parse(chunks.prompt!)).toMatchObject({ '3': { class_type: 'KSampler', inputs: { steps: STEPS, seed: 42 } }, '4': { inputs: { ckpt_name: SD15_FILE } } });
    console.log(`[test:engine] SD 1.5 64x64, ${STEPS} steps: ${seconds.toFixed(1)} s from execute to the PNG (checkpoint load included), ${sampling.length} step reports, ${previews.length} previews`);
  }, 900_000);
});

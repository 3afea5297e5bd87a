/**
 * Studio against a real engine (ComfyUI), when one is given: `ENGINE_DIR` + `ENGINE_PYTHON`
 * (managed: Studio starts it) or `ENGINE_PORT` of one already running (external). Built for this
 * machine's CPU by ../shared/real-engine/setup.sh. Covers what the stand-in can only imitate:
 * a no-weights workflow end to end, live previews, a validation error, a runtime error, an
 * interrupt, an engine with folders of its own, and the editor round-trip of the output PNG.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute, executeRaw, SAMPLE_PNG, uploadSample, waitForJob } from '../helpers/runner.js';
import { freePort } from '../helpers/ports.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';
import { connectStudioWs, decodeStudioPreview, until, type StudioWsClient } from '../helpers/studio-ws.js';
import { withoutText } from '../helpers/provenance-setup.js';
import { pngTextChunks } from './png-text.js';

const engineDir = process.env.ENGINE_DIR;
const enginePython = process.env.ENGINE_PYTHON;
const externalPort = process.env.ENGINE_PORT;
const available = Boolean((engineDir && enginePython) || externalPort);
if (!available) {
  console.warn('[test:engine] skipped: no real engine given. Set ENGINE_DIR and ENGINE_PYTHON (managed) or ENGINE_PORT (external); ../shared/real-engine/setup.sh builds one.');
}

let t: TestStudio;
let ws: StudioWsClient;

/**
 * A fresh folder beside the engine: an engine in a chroot (as setup.sh builds it) sees only its own
 * tree, so Studio's data directory must be reachable from there too.
 */
function dataDir(label: string): string {
  return fs.mkdtempSync(path.join(engineDir ? path.dirname(engineDir) : os.tmpdir(), `studio-test-${label}-`));
}

/** A workflow written into the data directory: a graph with no inputs Studio maps but the image. */
function addWorkflow(id: string, graph: Record<string, unknown>): void {
  const dir = path.join(t.dir, 'workflows', id);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'manifest.yaml'),
    `id: ${id}\nname: ${id}\ntype: static\ncategory: image\ndescription: real engine test\nauthor: test\nversion: 1\ndate: "2026-11-24 10:00"\n` +
      'inputs:\n  - id: image\n    type: image\n    label: Image\n    node_id: 1\n    field: image\noutputs:\n  - type: image\n    format: png\nrequired_models: []\nrequired_nodes: []\n',
  );
  fs.writeFileSync(path.join(dir, 'workflow.json'), JSON.stringify(graph));
}

describe.skipIf(!available)('a real engine', () => {
  beforeAll(async () => {
    const env: Record<string, string> = externalPort
      ? { ENGINE_MODE: 'external', ENGINE_PORT: externalPort }
      : { ENGINE_MODE: 'managed', ENGINE_DIR: engineDir!, ENGINE_PYTHON: enginePython!, ENGINE_PORT: String(await freePort()) };
    t = await startTestStudio({ startEngine: true, dir: dataDir('studio'), env: { ...env, PATH: process.env.PATH ?? '/usr/bin', HOME: os.homedir() } });
    await t.studio.engineReady(150_000);
    ws = await connectStudioWs(t.url, t.apiKey);
  });
  afterAll(async () => {
    await ws?.close();
    await t?.stop();
    if (t) fs.rmSync(t.dir, { recursive: true, force: true });
  });

  it('runs the no-weights workflow end to end, and its PNG opens in the editor with the workflow', async () => {
    const image = await uploadSample(t.api, 'real-engine.png');
    const { prompt_id } = await execute(t.api, 'image-filter', { params: { _existing_input_image: image, strength: 0.2, blur_radius: 3 } });
    await waitForJob(t.api, prompt_id, ['completed'], 90_000);
    const job = t.studio.jobs.get(prompt_id)!;
    const file = path.join(t.dir, 'assets', 'output', job.output_dir!, 'final', 'filtered_00001_.png');
    expect(fs.existsSync(file)).toBe(true);
    const progress = ws.ofType('job.progress').filter((f) => f.data.prompt_id === prompt_id);
    expect(progress.length).toBeGreaterThan(0);
    // The editor round-trip: the engine embedded the UI-format graph Studio sent in extra_pnginfo.
    const chunks = pngTextChunks(fs.readFileSync(file));
    const workflow = JSON.parse(chunks.workflow!) as { nodes: Array<{ type: string }>; links: unknown[] };
    expect(workflow.nodes.map((n) => n.type).sort()).toEqual(['ImageAddNoise', 'ImageBlur', 'LoadImage', 'SaveImage']);
    expect(workflow.links.length).toBe(3);
    expect(JSON.parse(chunks.prompt!)).toHaveProperty('4');
  });

  it('relays the images a SaveImageWebsocket node sends as binary frames tagged with the prompt', async () => {
    addWorkflow('rt-websocket', {
      1: { class_type: 'LoadImage', inputs: { image: '{{image}}' } },
      2: { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
      3: { class_type: 'SaveImageWebsocket', inputs: { images: ['2', 0] } },
      4: { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'inverted' } },
    });
    const image = await uploadSample(t.api, 'ws-source.png');
    const before = ws.binary.length;
    const { prompt_id } = await execute(t.api, 'rt-websocket', { params: { _existing_input_image: image } });
    await waitForJob(t.api, prompt_id, ['completed'], 90_000);
    await until(() => ws.binary.length > before, 'a binary preview frame');
    const frame = decodeStudioPreview(ws.binary[ws.binary.length - 1]!);
    expect(frame.meta.prompt_id).toBe(prompt_id);
    expect(frame.image.subarray(1, 4).toString('latin1')).toBe('PNG');
  });

  it('answers a validation error with 400 and the engine node errors', async () => {
    const res = await executeRaw(t.api, 'image-filter', { params: { _existing_input_image: 'not-uploaded.png' } });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { detail: string; node_errors: Record<string, unknown> };
    expect(body.detail).toMatch(/The input file “not-uploaded\.png” is not there/);
    expect(Object.keys(body.node_errors)).toContain('1');
  });

  it('reports a runtime error in plain words', async () => {
    // Starts like a PNG (so it passes the upload check and the engine's validation), then breaks:
    // the engine fails while decoding it, at run time.
    const broken = Buffer.concat([fs.readFileSync(SAMPLE_PNG).subarray(0, 40), Buffer.alloc(64, 0x41)]);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(broken)], { type: 'image/png' }), 'broken.png');
    const upload = (await (await t.api('/api/run/upload-image', { method: 'POST', body: form })).json()) as { filename: string };
    const { prompt_id } = await execute(t.api, 'image-filter', { params: { _existing_input_image: upload.filename } });
    const job = await waitForJob(t.api, prompt_id, ['error', 'completed'], 90_000);
    expect(job.status).toBe('error');
    expect(t.studio.jobs.get(prompt_id)!.error).toMatch(/^\[LoadImage\] /);
  });

  it('moves the progress of a graph whose nodes report no steps', async () => {
    addWorkflow('rt-slow', {
      1: { class_type: 'LoadImage', inputs: { image: '{{image}}' } },
      2: { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'lanczos', width: 1536, height: 1536, crop: 'disabled' } },
      3: { class_type: 'ImageBlur', inputs: { image: ['2', 0], blur_radius: 15, sigma: 5 } },
      4: { class_type: 'ImageBlur', inputs: { image: ['3', 0], blur_radius: 15, sigma: 5 } },
      5: { class_type: 'SaveImage', inputs: { images: ['4', 0], filename_prefix: 'slow' } },
    });
    const image = await uploadSample(t.api, 'slow-source.png');
    const run = await execute(t.api, 'rt-slow', { params: { _existing_input_image: image } });
    // Two blurs of 1536² take 15 s on a quiet 2-core CPU and over 90 s on a busy one.
    await waitForJob(t.api, run.prompt_id, ['completed'], 280_000);
    const running = ws
      .ofType('job.progress')
      .filter((f) => f.data.prompt_id === run.prompt_id)
      .map((f) => f.data.progress as { status: string; percent: number; nodes_done: number; effective_total: number })
      .filter((p) => p.status === 'running');
    console.log(`[test:engine] progress while running: ${running.map((p) => `${p.percent}% (${p.nodes_done}/${p.effective_total})`).join(', ')}`);
    expect(running.some((p) => p.percent > 0 && p.percent < 100)).toBe(true);
  }, 300_000);

  it('ends an interrupted job as an error, not running forever', async () => {
    const image = await uploadSample(t.api, 'slow-source-2.png');
    const { prompt_id } = await execute(t.api, 'rt-slow', { params: { _existing_input_image: image } });
    await waitForJob(t.api, prompt_id, ['running'], 60_000);
    await fetch(`${t.studio.engine.url}/interrupt`, { method: 'POST' });
    const job = await waitForJob(t.api, prompt_id, ['error', 'completed'], 90_000);
    expect(job.status).toBe('error');
  });
});

describe.skipIf(!engineDir || !enginePython)('a real engine with folders of its own (external)', () => {
  let engine: ChildProcess;
  let root: string;
  let s: TestStudio;

  beforeAll(async () => {
    root = dataDir('engine-own');
    const port = await freePort();
    const args = ['main.py', '--cpu', '--listen', '127.0.0.1', '--port', String(port), '--disable-auto-launch',
      '--input-directory', path.join(root, 'input'), '--output-directory', path.join(root, 'output'), '--temp-directory', root];
    engine = spawn(enginePython!, args, { cwd: engineDir, stdio: 'ignore', detached: true });
    s = await startTestStudio({ startEngine: true, env: { ENGINE_MODE: 'external', ENGINE_PORT: String(port) } });
    await until(async () => (await fetch(`http://127.0.0.1:${port}/system_stats`).catch(() => null))?.ok === true, 'the engine', 150_000);
    await s.studio.engineReady(30_000);
  });
  afterAll(async () => {
    await s?.stop();
    if (engine?.pid) process.kill(-engine.pid, 'SIGTERM');
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('fills the job folder from the engine\'s /view', async () => {
    expect(await s.studio.sharedFolders.probe()).toEqual([]);
    const image = await uploadSample(s.api, 'own-folders.png');
    expect(fs.existsSync(path.join(s.dir, 'assets', 'input', image))).toBe(true);
    const { prompt_id } = await execute(s.api, 'image-filter', { params: { _existing_input_image: image } });
    await waitForJob(s.api, prompt_id, ['completed'], 90_000);
    const job = s.studio.jobs.get(prompt_id)!;
    const copy = path.join(s.dir, 'assets', 'output', job.output_dir!, 'final', 'filtered_00001_.png');
    const original = path.join(root, 'output', job.output_dir!, 'final', 'filtered_00001_.png');
    // The engine's image, byte for byte, and its own chunks; the copy adds Studio's provenance text.
    const [mine, engines] = [fs.readFileSync(copy), fs.readFileSync(original)];
    expect(withoutText(mine).equals(withoutText(engines))).toBe(true);
    expect(pngTextChunks(mine).prompt).toBe(pngTextChunks(engines).prompt);
  });
});

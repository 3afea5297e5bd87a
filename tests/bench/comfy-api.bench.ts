/**
 * The engine's API served by Studio (issue 44) against the engine itself: a prompt's messages
 * through the door (`/comfy/prompt`, `/comfy/ws`: Studio's queue, hand-over and relay) against a
 * client connected to the engine directly (p50 and p99 of submit → `execution_success`, target
 * ≤ 1.2×), and a 20 MB `/view` through the door against the engine's own (target ≥ 0.9×). The
 * stand-in engine and Studio each run as their own (compiled) process; this process only drives them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { freePort } from '../helpers/ports.js';
import { startStudioProcess } from '../helpers/studio-process.js';
import { TEST_API_KEY } from '../helpers/studio.js';
import type { TargetRow } from './targets.js';

const PROMPTS = 15;
const VIEW_RUNS = 9;
const VIEW_SIZE = 20 * 1024 * 1024;
/** Text-to-image with 20 sampler steps (20 ms each on the stand-in): a short real prompt's shape. */
const GRAPH = {
  '3': { class_type: 'KSampler', inputs: { seed: 1, steps: 20, cfg: 7, sampler_name: 'euler', scheduler: 'normal', denoise: 1, model: ['4', 0], positive: ['6', 0], negative: ['6', 0], latent_image: ['5', 0] } },
  '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sd_xl_base_1.0.safetensors' } },
  '5': { class_type: 'EmptyLatentImage', inputs: { width: 512, height: 512, batch_size: 1 } },
  '6': { class_type: 'CLIPTextEncode', inputs: { text: 'bench', clip: ['4', 1] } },
  '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] } },
  '9': { class_type: 'SaveImage', inputs: { filename_prefix: 'bench', images: ['8', 0] } },
};

async function startEngine(root: string, dir: string): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const args = [path.join(root, 'dist', 'server', 'standin', 'main.js'), '--port', String(port), '--input-directory', path.join(dir, 'assets', 'input'), '--output-directory', path.join(dir, 'assets', 'output')];
  const child = spawn(process.execPath, args, { env: { ...process.env, STUDIO_DIR: dir, STANDIN_STEP_MS: '20', STANDIN_NODE_MS: '5' }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')).includes('listening on') && resolve());
    child.once('exit', (code) => reject(new Error(`the stand-in exited with ${code}`)));
  });
  return { child, port };
}

/** A socket at `wsUrl`: resolves each prompt's `execution_success` (by prompt id). */
async function listener(wsUrl: string, headers: Record<string, string>): Promise<{ done: (id: string) => Promise<number>; close: () => void }> {
  const waiting = new Map<string, (t: number) => void>();
  const ws = new WebSocket(wsUrl, { headers });
  ws.on('message', (data, binary) => {
    if (binary) return;
    const msg = JSON.parse(String(data)) as { type: string; data: { prompt_id?: string } };
    if (msg.type === 'execution_success' && msg.data.prompt_id) waiting.get(msg.data.prompt_id)?.(performance.now());
  });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  return { done: (id) => new Promise((resolve) => waiting.set(id, resolve)), close: () => ws.close() };
}

/** Submit one prompt and wait for its end; ms from submit to the client hearing `execution_success`. */
async function timed(base: string, headers: Record<string, string>, clientId: string, socket: { done: (id: string) => Promise<number> }): Promise<number> {
  const id = crypto.randomUUID();
  // A new seed each time: the engine would answer a repeated graph from its cache.
  const graph = { ...GRAPH, '3': { ...GRAPH['3'], inputs: { ...GRAPH['3'].inputs, seed: crypto.randomInt(1, 2 ** 31) } } };
  const ended = socket.done(id);
  const t0 = performance.now();
  const res = await fetch(`${base}/prompt`, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ prompt: graph, client_id: clientId, prompt_id: id }) });
  if (res.status !== 200) throw new Error(`POST ${base}/prompt: ${res.status} ${await res.text()}`);
  return (await ended) - t0;
}

function rate(url: string, headers: Record<string, string> = {}): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    http.get(url, { headers }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => (res.statusCode === 200 && bytes === VIEW_SIZE ? resolve(VIEW_SIZE / 1048576 / ((performance.now() - t0) / 1000)) : reject(new Error(`GET ${url}: ${res.statusCode}, ${bytes} bytes`))));
    }).on('error', reject);
  });
}

const pct = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length - 1) * p))]!;

/** Run the engine API benchmark and print its lines. */
export async function run(root: string): Promise<TargetRow[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-bench-comfy-'));
  fs.mkdirSync(path.join(dir, 'models', 'checkpoints'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'models', 'checkpoints', 'sd_xl_base_1.0.safetensors'), 'stand-in weights');
  fs.mkdirSync(path.join(dir, 'assets', 'output', 'bench'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'assets', 'output', 'bench', 'big.png'), crypto.randomBytes(VIEW_SIZE));
  const engine = await startEngine(root, dir);
  const studio = await startStudioProcess({ STUDIO_DIR: dir, ENGINE_MODE: 'external', ENGINE_PORT: String(engine.port), COMFY_API: 'on' }, { compiled: true });
  const key = { 'X-API-Key': TEST_API_KEY };
  const direct = await listener(`ws://127.0.0.1:${engine.port}/ws?clientId=bench-direct`, {});
  const door = await listener(`${studio.url.replace('http', 'ws')}/comfy/ws?clientId=bench-door`, key);
  try {
    // Warm both paths (the engine's node list, Studio's first hand-over).
    await timed(`http://127.0.0.1:${engine.port}`, {}, 'bench-direct', direct);
    await timed(`${studio.url}/comfy`, key, 'bench-door', door);
    const straight: number[] = [];
    const through: number[] = [];
    for (let i = 0; i < PROMPTS; i++) {
      straight.push(await timed(`http://127.0.0.1:${engine.port}`, {}, 'bench-direct', direct));
      through.push(await timed(`${studio.url}/comfy`, key, 'bench-door', door));
    }
    const view = 'filename=big.png&subfolder=bench&type=output';
    const viewStraight: number[] = [];
    const viewThrough: number[] = [];
    for (let i = 0; i < VIEW_RUNS; i++) {
      viewStraight.push(await rate(`http://127.0.0.1:${engine.port}/view?${view}`));
      viewThrough.push(await rate(`${studio.url}/comfy/view?${view}`, key));
    }
    const [p50, p99, d50, d99] = [pct(through, 0.5), pct(through, 0.99), pct(straight, 0.5), pct(straight, 0.99)];
    const [v, vd] = [pct(viewThrough, 0.5), pct(viewStraight, 0.5)];
    console.log(`a prompt, submit → execution_success heard (${PROMPTS} each, alternating): engine directly p50 ${d50.toFixed(0)} ms, p99 ${d99.toFixed(0)} ms; through Studio's door p50 ${p50.toFixed(0)} ms, p99 ${p99.toFixed(0)} ms`);
    console.log(`  ratios p50 ${(p50 / d50).toFixed(2)}, p99 ${(p99 / d99).toFixed(2)} (target ≤ 1.2)`);
    console.log(`/view of a 20 MB file (median of ${VIEW_RUNS}): engine ${vd.toFixed(0)} MB/s, door ${v.toFixed(0)} MB/s: ratio ${(v / vd).toFixed(2)} (target ≥ 0.9)`);
    return [
      { measure: "engine API: a prompt's messages through the door, p50", target: '≤ 1.2× engine directly', value: `${(p50 / d50).toFixed(2)}× (${p50.toFixed(0)} vs ${d50.toFixed(0)} ms)`, met: p50 / d50 <= 1.2 },
      { measure: "engine API: a prompt's messages through the door, p99", target: '≤ 1.2× engine directly', value: `${(p99 / d99).toFixed(2)}× (${p99.toFixed(0)} vs ${d99.toFixed(0)} ms)`, met: p99 / d99 <= 1.2 },
      { measure: 'engine API: /view of 20 MB', target: '≥ 0.9× engine directly', value: `${(v / vd).toFixed(2)}× (${v.toFixed(0)} vs ${vd.toFixed(0)} MB/s)`, met: v / vd >= 0.9 },
    ];
  } finally {
    direct.close();
    door.close();
    await studio.stop();
    engine.child.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

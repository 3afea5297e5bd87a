import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EngineClient } from '../../../server/engine/engine.client.js';
import { EngineError, EngineUnreachableError, EngineValidationError } from '../../../server/engine/engine-errors.js';
import { parseHistoryOutputs, primaryOutput, type EngineOutputFile } from '../../../server/engine/engine-outputs.js';
import { EngineSocket } from '../../../server/engine/engine-socket.js';
import type { EnginePreview } from '../../../server/engine/engine-messages.js';
import { type StandinEngine, startStandinEngine } from '../../../server/standin/standin.server.js';
import { ProgressTracker } from '../../../server/jobs/progress-tracker.js';
import type { ProgressObject } from '../../../server/contracts/jobs.contract.js';
import { silentLogger } from '../../../server/logging.js';
import type { ApiGraph } from '../../../server/engine/engine-graph.js';
import { freePort } from '../../helpers/ports.js';

const CLIENT_ID = 'studio-engine-client-test';
/** A 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

interface Engine {
  engine: StandinEngine;
  dir: string;
  inputDir: string;
  outputDir: string;
  client: EngineClient;
  socket: EngineSocket;
}

async function startEngine(stepMs: number): Promise<Engine> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
  const inputDir = path.join(dir, 'input');
  const outputDir = path.join(dir, 'output');
  // The checkpoint samplerGraph loads, where the engine looks for checkpoints.
  const checkpoints = path.join(dir, 'models', 'checkpoints');
  fs.mkdirSync(checkpoints, { recursive: true });
  fs.writeFileSync(path.join(checkpoints, CHECKPOINT), 'weights');
  const engine = await startStandinEngine({ port: 0, inputDir, outputDir, stepMs, modelFolders: new Map([['checkpoints', [checkpoints]]]) });
  const client = new EngineClient({ baseUrl: engine.url });
  const socket = new EngineSocket({ baseUrl: engine.url, clientId: CLIENT_ID, logger: silentLogger });
  socket.start();
  await new Promise<void>((resolve) => {
    if (socket.state.status === 'open') resolve();
    const off = socket.onStateChange((s) => {
      if (s.status === 'open') {
        off();
        resolve();
      }
    });
  });
  return { engine, dir, inputDir, outputDir, client, socket };
}

async function stopEngine(e: Engine | undefined): Promise<void> {
  if (!e) return;
  await e.socket.stop();
  await e.engine.close();
  fs.rmSync(e.dir, { recursive: true, force: true });
}

/** Follow one prompt through the shared socket until the engine says its history is written. */
function track(socket: EngineSocket, promptId: string, graph: ApiGraph): { tracker: ProgressTracker; snaps: ProgressObject[]; previews: EnginePreview[]; done: Promise<void> } {
  const tracker = new ProgressTracker({ promptId, graph });
  const snaps: ProgressObject[] = [];
  const previews: EnginePreview[] = [];
  const offPreview = socket.onPreview((p) => {
    if (p.promptId === promptId) previews.push(p);
  });
  const done = new Promise<void>((resolve) => {
    const off = socket.onMessage((msg) => {
      tracker.handle(msg);
      snaps.push(tracker.snapshot());
      if (tracker.historyReady) {
        off();
        offPreview();
        resolve();
      }
    });
  });
  return { tracker, snaps, previews, done };
}

const CHECKPOINT = 'model.safetensors';

/** Text to image: the KSampler (node 2, titled "Sampler") is the one node that reports steps. */
function samplerGraph(prefix: string, seed = 1): ApiGraph {
  return {
    '1': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: CHECKPOINT } },
    '2': {
      class_type: 'KSampler',
      inputs: { model: ['1', 0], seed, steps: 4, cfg: 7, sampler_name: 'euler', scheduler: 'normal', positive: ['5', 0], negative: ['5', 0], latent_image: ['6', 0], denoise: 1 },
      _meta: { title: 'Sampler' },
    },
    '3': { class_type: 'SaveImage', inputs: { images: ['4', 0], filename_prefix: prefix } },
    '4': { class_type: 'VAEDecode', inputs: { samples: ['2', 0], vae: ['1', 2] } },
    '5': { class_type: 'CLIPTextEncode', inputs: { text: 'a fox', clip: ['1', 1] } },
    '6': { class_type: 'EmptyLatentImage', inputs: { width: 64, height: 64, batch_size: 1 } },
  };
}

function noiseGraph(prefix: string, seed = 1): ApiGraph {
  return {
    '1': { class_type: 'EmptyImage', inputs: { width: 64, height: 48, batch_size: 1, color: 0 } },
    '2': { class_type: 'ImageAddNoise', inputs: { image: ['1', 0], seed, strength: 0.5 }, _meta: { title: 'Noise' } },
    '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: prefix } },
  };
}

describe('EngineClient and EngineSocket against the stand-in engine', () => {
  let e: Engine;
  beforeAll(async () => {
    e = await startEngine(10);
  });
  afterAll(async () => {
    await stopEngine(e);
  });

  it('reads system stats and object info', async () => {
    const stats = await e.client.systemStats();
    expect(stats.devices.length).toBeGreaterThan(0);
    expect(typeof stats.system.comfyui_version).toBe('string');
    const info = await e.client.objectInfo();
    expect(info.SaveImage?.output_node).toBe(true);
  });

  it('runs a prompt: full message sequence → tracker at 100 → history outputs → primary output', async () => {
    const promptId = crypto.randomUUID();
    const graph = samplerGraph('jobs/job-1/final/out');
    const run = track(e.socket, promptId, graph);
    const submitted = await e.client.submitPrompt({ prompt: graph, client_id: CLIENT_ID, prompt_id: promptId, extra_data: { preview_method: 'auto' } });
    expect(submitted.prompt_id).toBe(promptId);
    expect(submitted.node_errors).toEqual({});
    await run.done;

    const final = run.tracker.snapshot();
    expect(final).toMatchObject({ status: 'completed', percent: 100, total_nodes: 6, cached_count: 0 });
    let last = 0;
    for (const snap of run.snaps) {
      expect(snap.percent).toBeGreaterThanOrEqual(last);
      if (snap.status === 'running') expect(snap.percent).toBeLessThanOrEqual(99);
      last = snap.percent;
    }
    const running = run.snaps.filter((s) => s.status === 'running');
    expect(running.some((s) => s.node_title === 'Sampler' && s.total_steps === 10)).toBe(true);
    expect(running.some((s) => s.step_rate !== null && s.step_rate > 0)).toBe(true);
    expect(Object.keys(final.node_outputs)).toEqual(['3']);
    // The handshake asked for metadata, so previews came as type 4 with their ids.
    expect(run.previews.length).toBeGreaterThan(0);
    expect(run.previews[0]).toMatchObject({ promptId, nodeId: '2', imageType: 'image/jpeg' });

    const entry = await e.client.history(promptId);
    expect(entry?.status?.status_str).toBe('success');
    const files = parseHistoryOutputs(entry!);
    expect(files).toHaveLength(1);
    const primary = primaryOutput(files);
    expect(primary).toMatchObject({ node_id: '3', kind: 'images', type: 'output', subfolder: 'jobs/job-1/final' });
    expect(primary!.filename).toMatch(/^out_\d{5}_\.png$/);
    expect(fs.existsSync(path.join(e.outputDir, primary!.subfolder, primary!.filename))).toBe(true);

    // The file comes back through /view as a stream.
    const res = await e.client.view({ filename: primary!.filename, subfolder: primary!.subfolder, type: 'output' });
    expect(res?.status).toBe(200);
    expect(res?.headers.get('content-type')).toBe('image/png');
    await res?.body?.cancel();
  });

  it('counts cached nodes of a re-run and still completes', async () => {
    const first = crypto.randomUUID();
    const graph = noiseGraph('jobs/job-2/final/out', 7);
    const run1 = track(e.socket, first, graph);
    await e.client.submitPrompt({ prompt: graph, client_id: CLIENT_ID, prompt_id: first });
    await run1.done;
    // Same upstream nodes, new save prefix: the engine reuses nodes 1 and 2 from its cache.
    const second = crypto.randomUUID();
    const graph2 = noiseGraph('jobs/job-3/final/out', 7);
    const run2 = track(e.socket, second, graph2);
    await e.client.submitPrompt({ prompt: graph2, client_id: CLIENT_ID, prompt_id: second });
    await run2.done;
    expect(run2.tracker.snapshot()).toMatchObject({ status: 'completed', percent: 100, cached_count: 2 });
    // Once the engine listed the cached nodes, only the save node is left as work.
    const afterCache = run2.snaps.filter((s) => s.cached_count === 2);
    expect(afterCache.length).toBeGreaterThan(0);
    expect(afterCache.every((s) => s.effective_total <= 1)).toBe(true);
    const files = parseHistoryOutputs((await e.client.history(second))!);
    expect(primaryOutput(files)?.subfolder).toBe('jobs/job-3/final');
  });

  it('prefers a video output over images', async () => {
    const promptId = crypto.randomUUID();
    const graph: ApiGraph = {
      '1': { class_type: 'EmptyImage', inputs: { width: 32, height: 32, batch_size: 1, color: 255 } },
      '2': { class_type: 'RepeatImageBatch', inputs: { image: ['1', 0], amount: 4 } },
      '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'jobs/job-4/final/frames' } },
      '4': {
        class_type: 'VHS_VideoCombine',
        inputs: { images: ['2', 0], frame_rate: 8, loop_count: 0, filename_prefix: 'jobs/job-4/final/clip', format: 'video/h264-mp4', pingpong: false, save_output: true },
      },
    };
    const run = track(e.socket, promptId, graph);
    await e.client.submitPrompt({ prompt: graph, client_id: CLIENT_ID, prompt_id: promptId });
    await run.done;
    const files = parseHistoryOutputs((await e.client.history(promptId))!);
    expect(files.filter((f) => f.kind === 'images')).toHaveLength(4);
    expect(primaryOutput(files)).toMatchObject({ node_id: '4', kind: 'gifs', format: 'video/h264-mp4' });
  });

  it('reports an execution error as [NodeType] message', async () => {
    const promptId = crypto.randomUUID();
    const graph = noiseGraph('jobs/job-5/final/STANDIN_FAIL');
    const run = track(e.socket, promptId, graph);
    await e.client.submitPrompt({ prompt: graph, client_id: CLIENT_ID, prompt_id: promptId });
    await run.done;
    expect(run.tracker.status).toBe('error');
    expect(run.tracker.error).toBe('[SaveImage] Stand-in failure requested by input filename_prefix');
    expect(run.tracker.snapshot().percent).toBeLessThanOrEqual(99);
    expect((await e.client.history(promptId))?.status?.status_str).toBe('error');
  });

  it('throws EngineValidationError with the node errors and a readable summary', async () => {
    const graph = noiseGraph('x');
    graph['1']!.inputs.width = 999_999;
    const err = await e.client.submitPrompt({ prompt: graph, client_id: CLIENT_ID }).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(EngineValidationError);
    const v = err as EngineValidationError;
    expect(v.kind).toBe('rejected');
    expect(v.engineBody.error.type).toBe('prompt_outputs_failed_validation');
    expect(v.nodeErrors['1']?.errors[0]?.type).toBe('value_bigger_than_max');
    expect(v.message).toContain('[EmptyImage] node 1: width: ');
    expect(v.extra).toEqual(v.engineBody);

    const unknown = await e.client
      .submitPrompt({ prompt: { '1': { class_type: 'NoSuchNode', inputs: {} } }, client_id: CLIENT_ID })
      .catch((x: unknown) => x);
    expect(unknown).toBeInstanceOf(EngineValidationError);
    expect((unknown as EngineValidationError).engineBody.error.type).toMatch(/missing_node_type|invalid_prompt/);
    expect((unknown as EngineValidationError).message).toContain('NoSuchNode');
  });

  it('uploads an input file and follows the engine renaming', async () => {
    const first = await e.client.uploadImage(PNG, 'cat.png');
    expect(first).toEqual({ name: 'cat.png', subfolder: '', type: 'input' });
    expect(fs.readFileSync(path.join(e.inputDir, 'cat.png')).equals(PNG)).toBe(true);
    const other = Buffer.concat([PNG, Buffer.from([0])]);
    const second = await e.client.uploadImage(other, 'cat.png');
    expect(second.name).toBe('cat (1).png');
    const replaced = await e.client.uploadImage(other, 'cat.png', { overwrite: true });
    expect(replaced.name).toBe('cat.png');
    expect(fs.readFileSync(path.join(e.inputDir, 'cat.png')).equals(other)).toBe(true);
    const nested = await e.client.uploadImage(PNG, 'dog.png', { subfolder: 'pets' });
    expect(nested).toEqual({ name: 'dog.png', subfolder: 'pets', type: 'input' });
    expect(fs.existsSync(path.join(e.inputDir, 'pets', 'dog.png'))).toBe(true);
  });

  it('streams a 20 MB file through view without buffering it', async () => {
    const size = 20 * 1024 * 1024;
    fs.mkdirSync(path.join(e.outputDir, 'big'), { recursive: true });
    const big = Buffer.alloc(size, 7);
    big.writeUInt32BE(0xdeadbeef, size - 4);
    fs.writeFileSync(path.join(e.outputDir, 'big', 'big.bin'), big);

    const res = await e.client.view({ filename: 'big.bin', subfolder: 'big', type: 'output' });
    expect(res?.status).toBe(200);
    expect(res!.bodyUsed).toBe(false);
    expect(res!.body).toBeInstanceOf(ReadableStream);
    const stream = Readable.fromWeb(res!.body! as WebReadableStream<Uint8Array>);
    let total = 0;
    let chunks = 0;
    let largest = 0;
    let tail = Buffer.alloc(0);
    for await (const chunk of stream) {
      const buf = chunk as Buffer;
      total += buf.length;
      chunks += 1;
      largest = Math.max(largest, buf.length);
      tail = Buffer.concat([tail, buf]).subarray(-4);
    }
    expect(total).toBe(size);
    // It arrived in many pieces, none of them the whole file.
    expect(chunks).toBeGreaterThan(1);
    expect(largest).toBeLessThan(size);
    expect(tail.readUInt32BE(0)).toBe(0xdeadbeef);

    const missing = await e.client.view({ filename: 'nope.png', type: 'output' });
    expect(missing?.status).toBe(404);
    await missing?.body?.cancel();
  });

  it('returns null history for an unknown prompt', async () => {
    expect(await e.client.history(crypto.randomUUID())).toBeNull();
  });
});

describe('queue, delete and interrupt', () => {
  let e: Engine;
  beforeAll(async () => {
    e = await startEngine(150);
  });
  afterAll(async () => {
    await stopEngine(e);
  });

  it('lists running and pending prompts, deletes a pending one and interrupts the running one', async () => {
    const ids = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    const graphs = ids.map((_, i) => samplerGraph(`jobs/q${i}/final/out`, 100 + i));
    const runA = track(e.socket, ids[0]!, graphs[0]!);
    const started = new Promise<void>((resolve) => {
      const off = e.socket.onMessage((m) => {
        if (m.type === 'progress' && m.data.prompt_id === ids[0]) {
          off();
          resolve();
        }
      });
    });
    for (const [i, id] of ids.entries()) await e.client.submitPrompt({ prompt: graphs[i]!, client_id: CLIENT_ID, prompt_id: id });
    await started;

    const queue = await e.client.queue();
    expect(queue.running).toEqual([ids[0]]);
    expect(queue.pending).toEqual([ids[1], ids[2]]);
    expect(queue.raw.queue_pending).toHaveLength(2);

    await e.client.deleteFromQueue([ids[2]!]);
    expect((await e.client.queue()).pending).toEqual([ids[1]]);

    const runB = track(e.socket, ids[1]!, graphs[1]!);
    await e.client.interrupt(ids[0]);
    await runA.done;
    expect(runA.tracker.status).toBe('interrupted');
    expect(runA.tracker.snapshot().percent).toBeLessThan(100);
    // The next prompt runs on, then finishes; the deleted one never gets history.
    await runB.done;
    expect(runB.tracker.status).toBe('completed');
    expect(await e.client.history(ids[2]!)).toBeNull();
    expect((await e.client.history(ids[0]!))?.status?.status_str).toBe('error');
  });
});

describe('an engine that is down or stuck', () => {
  const servers: http.Server[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) {
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    }
  });

  async function serve(handler: http.RequestListener): Promise<string> {
    const server = http.createServer(handler);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('throws EngineUnreachableError when nothing listens, and view gives null', async () => {
    const client = new EngineClient({ baseUrl: `http://127.0.0.1:${await freePort()}` });
    const err = await client.systemStats().catch((x: unknown) => x);
    expect(err).toBeInstanceOf(EngineUnreachableError);
    expect((err as EngineUnreachableError).kind).toBe('unreachable');
    expect((err as Error).message).toMatch(/ECONNREFUSED/);
    await expect(client.submitPrompt({ prompt: noiseGraph('x'), client_id: CLIENT_ID })).rejects.toBeInstanceOf(EngineUnreachableError);
    await expect(client.uploadImage(PNG, 'a.png')).rejects.toBeInstanceOf(EngineUnreachableError);
    await expect(client.queue()).rejects.toBeInstanceOf(EngineUnreachableError);
    expect(await client.view({ filename: 'a.png' })).toBeNull();
  });

  it('times out a call the engine never answers', async () => {
    const url = await serve(() => {
      /* never answers */
    });
    const client = new EngineClient({ baseUrl: url, timeoutMs: 200 });
    const err = await client.history('x').catch((x: unknown) => x);
    expect(err).toBeInstanceOf(EngineUnreachableError);
    expect((err as Error).message).toContain('no answer within 200 ms');
    expect(await client.view({ filename: 'a.png' })).toBeNull();
  });

  it('times only the headers of view, not the body', async () => {
    // Headers at once, then the body held until a timer as long as the client's timeout, started
    // after the client's own (the request has arrived), has fired: a client that timed the body too
    // would have aborted by then. No wall-clock bound: a slow machine only delays the headers.
    const timeoutMs = 2000;
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.write(Buffer.alloc(1000, 1));
      setTimeout(() => res.end(Buffer.alloc(7000, 1)), timeoutMs + 50);
    });
    const client = new EngineClient({ baseUrl: url, timeoutMs });
    const res = await client.view({ filename: 'slow.bin' });
    const body = Buffer.from(await res!.arrayBuffer());
    expect(body.length).toBe(8000);
  });

  it('reports an unexpected engine answer as an engine error, not a crash', async () => {
    const url = await serve((_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('Server got itself in trouble'));
    const client = new EngineClient({ baseUrl: url });
    const err = await client.submitPrompt({ prompt: noiseGraph('x'), client_id: CLIENT_ID }).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).kind).toBe('upstream');
    expect(err).not.toBeInstanceOf(EngineValidationError);
    expect((err as Error).message).toContain('HTTP 500');
  });
});

describe('parseHistoryOutputs and primaryOutput', () => {
  const entry = {
    outputs: {
      '9': {
        images: [
          { filename: 'a_00001_.png', subfolder: 'jobs/j/final', type: 'output' },
          { filename: 'b_00001_.png', subfolder: 'jobs/j/final', type: 'output' },
        ],
        animated: [false],
      },
      '12': { images: [{ filename: 'ComfyUI_temp_abcde_00001_.png', subfolder: '', type: 'temp' }] },
      '15': { text: ['hello'] },
      '20': { audio: [{ filename: 'voice_00001_.flac', subfolder: 'audio', type: 'output' }] },
      '7': { '3d': [{ notAFile: true }], junk: 'x', nothing: null },
    },
  };

  it('flattens outputs, keeping only dicts with a filename', () => {
    const files = parseHistoryOutputs(entry);
    // Integer-like node ids come out in numeric order; `animated`, `text` and junk are skipped.
    expect(files.map((f) => `${f.node_id}:${f.kind}:${f.filename}:${f.type}`)).toEqual([
      '9:images:a_00001_.png:output',
      '9:images:b_00001_.png:output',
      '12:images:ComfyUI_temp_abcde_00001_.png:temp',
      '20:audio:voice_00001_.flac:output',
    ]);
  });

  it('picks the last output image, ignoring temp previews', () => {
    expect(primaryOutput(parseHistoryOutputs(entry))?.filename).toBe('b_00001_.png');
  });

  it('prefers videos by extension, format or key, and ignores temp videos', () => {
    const base: EngineOutputFile[] = [{ node_id: '1', kind: 'images', filename: 'x.png', subfolder: '', type: 'output' }];
    const byExt = [...base, { node_id: '2', kind: 'images', filename: 'clip_00001_.webm', subfolder: '', type: 'output' }, ...base];
    expect(primaryOutput(byExt)?.filename).toBe('clip_00001_.webm');
    const byFormat = [{ node_id: '2', kind: 'files', filename: 'clip', subfolder: '', type: 'output', format: 'video/h264-mp4' }, ...base];
    expect(primaryOutput(byFormat)?.filename).toBe('clip');
    const byKey = [{ node_id: '2', kind: 'gifs', filename: 'anim.gif', subfolder: '', type: 'output' }, ...base];
    expect(primaryOutput(byKey)?.filename).toBe('anim.gif');
    const tempVideo = [...base, { node_id: '2', kind: 'gifs', filename: 'v.mp4', subfolder: '', type: 'temp' }];
    expect(primaryOutput(tempVideo)?.filename).toBe('x.png');
    expect(primaryOutput([])).toBeNull();
    expect(primaryOutput([{ node_id: '2', kind: 'audio', filename: 'a.flac', subfolder: '', type: 'output' }])?.filename).toBe('a.flac');
  });
});

/**
 * The engine client's tests' setup: a stand-in engine in-process with its client and socket, the
 * graphs they run, and a tracker that records a prompt's progress.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EngineClient } from '../../server/engine/engine.client.js';
import { EngineSocket } from '../../server/engine/engine-socket.js';
import type { EnginePreview } from '../../server/engine/engine-messages.js';
import { type StandinEngine, startStandinEngine } from '../../server/standin/standin.server.js';
import { ProgressTracker } from '../../server/jobs/progress-tracker.js';
import type { ProgressObject } from '../../server/contracts/jobs.contract.js';
import { silentLogger } from '../../server/logging.js';
import type { ApiGraph } from '../../server/engine/engine-graph.js';

export const CLIENT_ID = 'studio-engine-client-test';
/** A 1×1 PNG. */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

export interface Engine {
  engine: StandinEngine;
  dir: string;
  inputDir: string;
  outputDir: string;
  client: EngineClient;
  socket: EngineSocket;
}

export async function startEngine(stepMs: number): Promise<Engine> {
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

export async function stopEngine(e: Engine | undefined): Promise<void> {
  if (!e) return;
  await e.socket.stop();
  await e.engine.close();
  fs.rmSync(e.dir, { recursive: true, force: true });
}

/** Follow one prompt through the shared socket until the engine says its history is written. */
export function track(socket: EngineSocket, promptId: string, graph: ApiGraph): { tracker: ProgressTracker; snaps: ProgressObject[]; previews: EnginePreview[]; done: Promise<void> } {
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
export function samplerGraph(prefix: string, seed = 1): ApiGraph {
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

export function noiseGraph(prefix: string, seed = 1): ApiGraph {
  return {
    '1': { class_type: 'EmptyImage', inputs: { width: 64, height: 48, batch_size: 1, color: 0 } },
    '2': { class_type: 'ImageAddNoise', inputs: { image: ['1', 0], seed, strength: 0.5 }, _meta: { title: 'Noise' } },
    '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: prefix } },
  };
}

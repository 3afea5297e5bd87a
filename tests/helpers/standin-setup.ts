/**
 * The stand-in engine tests' setup: a WebSocket recorder, temp folders, uploads and JSON posts to a
 * stand-in, and the graphs they run.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { type StandinEngine } from '../../server/standin/standin.server.js';

export const REPO = path.resolve(import.meta.dirname, '../..');
export const PNG = fs.readFileSync(path.join(REPO, 'resources/standin/image.png'));
export const JPEG = fs.readFileSync(path.join(REPO, 'resources/standin/preview.jpg'));
/** Client-supplied prompt ids must be canonical UUIDs, as in the engine since 0.25. */
export const JOB_A = 'aaaaaaaa-0000-4000-8000-00000000000a';
export const JOB_B = 'bbbbbbbb-0000-4000-8000-00000000000b';
/** The engine dumps kept in the repository, as the transcripts are. */
export const FIXTURES = path.join(REPO, 'tests', 'fixtures', 'engine');

export type Frame = { kind: 'text'; type: string; data: Record<string, unknown> } | { kind: 'binary'; bytes: Buffer };
export type TextFrame = Extract<Frame, { kind: 'text' }>;

/** A WebSocket client that keeps every frame and lets a test wait for one. */
export class WsRecorder {
  readonly frames: Frame[] = [];
  private waiters: Array<() => void> = [];

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      if (isBinary) this.frames.push({ kind: 'binary', bytes: data });
      else {
        const parsed = JSON.parse(data.toString()) as { type: string; data: Record<string, unknown> };
        this.frames.push({ kind: 'text', type: parsed.type, data: parsed.data });
      }
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  static async open(engine: StandinEngine, clientId: string, handshake = false): Promise<WsRecorder> {
    const socket = new WebSocket(`${engine.url.replace('http', 'ws')}/ws?clientId=${clientId}`);
    const recorder = new WsRecorder(socket);
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    if (handshake) socket.send(JSON.stringify({ type: 'feature_flags', data: { supports_preview_metadata: true } }));
    await recorder.waitFor((f) => f.kind === 'text' && f.type === (handshake ? 'feature_flags' : 'status'));
    return recorder;
  }

  mark(): number {
    return this.frames.length;
  }

  async waitFor(match: (f: Frame) => boolean, from = 0): Promise<Frame> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const found = this.frames.slice(from).find(match);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no matching frame; got ${this.types(from).join(', ')}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }

  /** Wait for `executing {node:null}` of the prompt and return every frame since `from`. */
  async untilDone(promptId: string, from: number): Promise<Frame[]> {
    await this.waitFor((f) => isText(f, 'executing') && f.data.node === null && f.data.prompt_id === promptId, from);
    return this.frames.slice(from);
  }

  types(from = 0): string[] {
    return this.frames.slice(from).map((f) => (f.kind === 'text' ? f.type : 'binary'));
  }

  close(): void {
    this.socket.close();
  }
}

export function isText(f: Frame, type: string): f is TextFrame {
  return f.kind === 'text' && f.type === type;
}

export function texts(frames: Frame[], type: string): TextFrame[] {
  return frames.filter((f): f is TextFrame => isText(f, type));
}

export function tempDirs() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
  return { root, input: path.join(root, 'input'), output: path.join(root, 'output'), temp: path.join(root, 'temp') };
}

export async function postJson(engine: StandinEngine, route: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${engine.url}${route}`, { method: 'POST', body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

export async function upload(engine: StandinEngine, bytes: Buffer, name: string, fields: Record<string, string> = {}) {
  const form = new FormData();
  form.append('image', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), name);
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  const res = await fetch(`${engine.url}/upload/image`, { method: 'POST', body: form });
  return { status: res.status, json: res.status === 200 ? ((await res.json()) as Record<string, unknown>) : null };
}

export const invertGraph = (prefix: string) => ({
  '1': { class_type: 'LoadImage', inputs: { image: 'source.png' } },
  '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: prefix } },
});

/** The checkpoint every sampler graph loads; the stand-in lists it from its model folder. */
export const MODEL = 'sdxl/model.safetensors';

/** A text-to-image graph: its KSampler (node 2) is the one node that reports steps. */
export const samplerGraph = (seed: number, prefix = 'gen/out') => ({
  '1': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: MODEL } },
  '2': {
    class_type: 'KSampler',
    inputs: { model: ['1', 0], seed, steps: 4, cfg: 7, sampler_name: 'euler', scheduler: 'normal', positive: ['5', 0], negative: ['5', 0], latent_image: ['6', 0], denoise: 1 },
  },
  '3': { class_type: 'SaveImage', inputs: { images: ['4', 0], filename_prefix: prefix } },
  '4': { class_type: 'VAEDecode', inputs: { samples: ['2', 0], vae: ['1', 2] } },
  '5': { class_type: 'CLIPTextEncode', inputs: { text: 'a fox', clip: ['1', 1] } },
  '6': { class_type: 'EmptyLatentImage', inputs: { width: 64, height: 64, batch_size: 1 } },
});

/** Model folders holding MODEL, as the engine would find them through extra_model_paths.yaml. */
export function modelFolders(root: string): Map<string, string[]> {
  const checkpoints = path.join(root, 'models', 'checkpoints');
  fs.mkdirSync(path.join(checkpoints, 'sdxl'), { recursive: true });
  fs.writeFileSync(path.join(checkpoints, MODEL), 'weights');
  return new Map([['checkpoints', [checkpoints]]]);
}

export const noiseGraph = (seed: number, prefix = 'slow/out') => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 32, height: 32, batch_size: 1, color: 0 } },
  '2': { class_type: 'ImageAddNoise', inputs: { image: ['1', 0], seed, strength: 0.5 } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: prefix } },
});

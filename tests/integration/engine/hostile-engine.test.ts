/**
 * The fault: an engine that sends garbage on its WebSocket — progress of 1e308 steps, node
 * outputs that are not lists, preview frames whose bytes are not an image. Studio refuses these
 * where it parses the engine's messages: none of it reaches its own WebSocket clients, and the
 * job still finishes from the engine's history.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStandinEngine, type StandinEngine } from '../../../server/standin/standin.server.js';
import { startHostileEngine, type HostileEngine } from '../../helpers/hostile-engine.js';
import { execute, plantModels, SHIPPED_MODELS, waitForJob } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { connectStudioWs, decodeStudioPreview, until, type StudioWsClient } from '../../helpers/studio-ws.js';

let dir: string;
let engine: StandinEngine;
let hostile: HostileEngine;
let t: TestStudio;
let ws: StudioWsClient;
const tampered = { progress: 0, executed: 0, previews: 0 };

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-hostile-'));
  plantModels(dir, SHIPPED_MODELS);
  engine = await startStandinEngine({
    port: 0,
    inputDir: path.join(dir, 'assets', 'input'),
    outputDir: path.join(dir, 'assets', 'output'),
    tempDir: path.join(dir, 'engine', 'temp'),
    stepMs: 40,
    nodeMs: 50,
    modelFolders: new Map([['checkpoints', [path.join(dir, 'models', 'checkpoints')]]]),
  });
  hostile = await startHostileEngine(engine.port, {
    text(msg) {
      if (msg.type === 'progress') {
        tampered.progress++;
        return { ...msg, data: { ...msg.data, value: 1e308 } };
      }
      if (msg.type === 'executed') {
        tampered.executed++;
        return { ...msg, data: { ...msg.data, output: { images: 'not a list', text: { a: 1 } } } };
      }
      return msg;
    },
    binary(frame) {
      tampered.previews++;
      // The header (type 1, JPEG) stays; the bytes after it are a web page, not a picture.
      return Buffer.concat([frame.subarray(0, 8), Buffer.from('<html><script>alert(1)</script></html>')]);
    },
  });
  t = await startTestStudio({ dir, startEngine: true, env: { ENGINE_MODE: 'external', ENGINE_PORT: String(hostile.port) } });
  await t.studio.engineReady();
  ws = await connectStudioWs(t.url, t.apiKey);
});

afterAll(async () => {
  await ws?.close();
  await t?.stop();
  await hostile?.close();
  await engine?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('an engine sending garbage', () => {
  it('has its garbage refused at the boundary: clients get sane progress, list outputs, image previews only', async () => {
    const { prompt_id } = await execute(t.api, 'txt2img-sdxl', { params: { positive: 'a fox', steps: 4 } });
    expect((await waitForJob(t.api, prompt_id, ['completed', 'error', 'stalled'])).status).toBe('completed');
    await until(() => ws.ofType('job.completed').some((f) => f.data.prompt_id === prompt_id), 'job.completed frame');
    // The engine did send each kind of garbage.
    expect(tampered.progress).toBeGreaterThan(0);
    expect(tampered.executed).toBeGreaterThan(0);
    expect(tampered.previews).toBeGreaterThan(0);

    const progress = ws.ofType('job.progress').filter((f) => f.data.prompt_id === prompt_id).map((f) => f.data.progress as Record<string, unknown>);
    expect(progress.length).toBeGreaterThan(0);
    for (const p of progress) {
      const step = p.step as number;
      const total = p.total_steps as number;
      expect(Number.isSafeInteger(step) && Number.isSafeInteger(total) && step <= total).toBe(true);
      expect(p.percent as number).toBeLessThanOrEqual(100);
      for (const output of Object.values(p.node_outputs as Record<string, unknown>)) {
        if (output === null) continue;
        for (const value of Object.values(output as Record<string, unknown>)) expect(Array.isArray(value)).toBe(true);
      }
    }
    const jpeg = (b: Buffer) => b.subarray(0, 3).toString('hex') === 'ffd8ff';
    const png = (b: Buffer) => b.subarray(0, 8).toString('hex') === '89504e470d0a1a0a';
    for (const frame of ws.binary.map(decodeStudioPreview)) expect(jpeg(frame.image) || png(frame.image)).toBe(true);
  });
});

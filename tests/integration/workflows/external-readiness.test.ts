/**
 * Readiness against an external engine: a model counts as present when the engine offers it in
 * its loader combos (what it validates prompts against), not when it sits in Studio's models/.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStandinEngine, type StandinEngine } from '../../../server/standin/standin.server.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

interface Entry {
  id: string;
  models_status: { missing: string[] };
  ready: boolean;
}

let engine: StandinEngine;
let root: string;
let t: TestStudio;

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-ext-ready-'));
  // The engine's own model folder holds the SDXL checkpoint; Studio's does not.
  const checkpoints = path.join(root, 'models', 'checkpoints');
  fs.mkdirSync(checkpoints, { recursive: true });
  fs.writeFileSync(path.join(checkpoints, 'sd_xl_base_1.0.safetensors'), 'x');
  engine = await startStandinEngine({
    port: 0,
    inputDir: path.join(root, 'in'),
    outputDir: path.join(root, 'out'),
    stepMs: 10,
    modelFolders: new Map([['checkpoints', [checkpoints]]]),
  });
  t = await startTestStudio({ startEngine: true, env: { ENGINE_MODE: 'external', ENGINE_PORT: String(engine.port) } });
  await t.studio.engineReady();
  // A model only Studio has: the external engine cannot load it.
  fs.mkdirSync(path.join(t.dir, 'models', 'checkpoints'), { recursive: true });
  fs.writeFileSync(path.join(t.dir, 'models', 'checkpoints', 'studio-only.safetensors'), 'x');
  const dir = path.join(t.dir, 'workflows', 'studio-only');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'manifest.yaml'),
    'id: studio-only\nname: Studio only\ntype: static\ncategory: image\ndescription: test\nauthor: test\nversion: 1\ndate: "2026-11-24 10:00"\ninputs: []\n' +
      'outputs:\n  - type: image\n    format: png\nrequired_models: [studio-only.safetensors]\nrequired_nodes: []\n',
  );
  fs.writeFileSync(path.join(dir, 'workflow.json'), JSON.stringify({ 1: { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'studio-only.safetensors' } } }));
});
afterAll(async () => {
  await t.stop();
  await engine.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('readiness with an external engine', () => {
  it('counts the models the engine offers, and not the ones only Studio has', async () => {
    const list = (await (await t.api('/api/admin/workflows')).json()) as { workflows: Entry[] };
    const sdxl = list.workflows.find((w) => w.id === 'txt2img-sdxl')!;
    expect(sdxl.models_status.missing).toEqual([]);
    const own = (await (await t.api('/api/admin/workflows/studio-only')).json()) as Entry;
    expect(own.models_status.missing).toEqual(['studio-only.safetensors']);
    expect(own.ready).toBe(false);
  });
});

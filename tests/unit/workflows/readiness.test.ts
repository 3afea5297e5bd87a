import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngineModelPresence, lacksOn } from '../../../server/workflows/engine-model-presence.js';
import { createModelPresence } from '../../../server/workflows/model-presence.store.js';
import { ENGINE_CORE, groupNodePackages, packageOfModule } from '../../../server/workflows/node-packages.js';
import { modelsStatus, nodesStatus, readiness, workflowListEntry } from '../../../server/workflows/readiness.js';
import { loadWorkflow } from '../../../server/workflows/workflow.store.js';
import { coreObjectInfo, sampleObjectInfo, shippedWorkflowsDir, tempDir } from './helpers.js';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

describe('groupNodePackages', () => {
  it('groups the sample engine by python_module', () => {
    const info = sampleObjectInfo();
    const packages = groupNodePackages(info);
    const names = packages.map((pkg) => pkg.name);
    expect(names).toEqual(
      [
        'ComfyUI-Advanced-ControlNet',
        'ComfyUI-AnimateDiff-Evolved',
        'comfyui_controlnet_aux',
        'ComfyUI-MVAdapter',
        'ComfyUI-VideoHelperSuite',
        'ComfyUI-WD14-Tagger',
        'ComfyUI_IPAdapter_plus',
        ENGINE_CORE,
        'websocket_image_save',
      ].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1)),
    );
    const vhs = packages.find((pkg) => pkg.name === 'ComfyUI-VideoHelperSuite')!;
    expect(vhs.nodes).toContain('VHS_VideoCombine');
    expect(vhs.nodes).toEqual([...vhs.nodes].sort());
    expect(vhs.node_count).toBe(vhs.nodes.length);
    expect(packages.reduce((sum, pkg) => sum + pkg.node_count, 0)).toBe(Object.keys(info).length);
    const core = packages.find((pkg) => pkg.name === ENGINE_CORE)!;
    expect(core.nodes).toEqual(expect.arrayContaining(['KSampler', 'ImageBlur']));
  });

  it('maps modules to packages', () => {
    expect(packageOfModule('custom_nodes.ComfyUI-VideoHelperSuite')).toBe('ComfyUI-VideoHelperSuite');
    expect(packageOfModule('custom_nodes.my_pack.nodes.extra')).toBe('my_pack');
    expect(packageOfModule('comfy_extras.nodes_images')).toBe(ENGINE_CORE);
    expect(packageOfModule('comfy_api_nodes.nodes_kling')).toBe(ENGINE_CORE);
    expect(packageOfModule('nodes')).toBe(ENGINE_CORE);
    expect(packageOfModule(undefined)).toBe(ENGINE_CORE);
  });
});

describe('readiness', () => {
  const manifest = {
    required_models: ['a.safetensors', 'b.safetensors', 'a.safetensors'],
    required_nodes: ['comfyui-videohelpersuite'],
  };

  it('counts models on disk and lists the missing ones', () => {
    expect(modelsStatus(manifest, (file) => file === 'a.safetensors')).toEqual({ total: 2, present: 1, missing: ['b.safetensors'] });
  });

  it('finds node packages case-insensitively, or by node class', () => {
    expect(nodesStatus(manifest, groupNodePackages(sampleObjectInfo()))).toEqual({ total: 1, installed: 1, missing: [] });
    expect(nodesStatus(manifest, groupNodePackages(coreObjectInfo()))).toEqual({ total: 1, installed: 0, missing: ['comfyui-videohelpersuite'] });
    expect(nodesStatus({ required_nodes: ['VHS_VideoCombine'] }, groupNodePackages(sampleObjectInfo())).installed).toBe(1);
  });

  it('is ready only when nothing is missing', () => {
    const packages = groupNodePackages(sampleObjectInfo());
    expect(readiness(manifest, () => true, packages).ready).toBe(true);
    expect(readiness(manifest, () => false, packages).ready).toBe(false);
    expect(readiness(manifest, () => true, []).ready).toBe(false);
    expect(readiness({ required_models: [], required_nodes: [] }, () => false, [])).toEqual({
      models_status: { total: 0, present: 0, missing: [] },
      nodes_status: { total: 0, installed: 0, missing: [] },
      ready: true,
    });
  });
});

describe('workflowListEntry', () => {
  it('adds readiness to a manifest, and marks broken workflows not ready', async () => {
    const entry = (await loadWorkflow(shippedWorkflowsDir, 'img2vid-wan'))!;
    const packages = groupNodePackages(sampleObjectInfo());
    const listed = workflowListEntry(entry, (file) => file.startsWith('wan'), packages);
    expect(listed).toMatchObject({
      id: 'img2vid-wan',
      type: 'static',
      inputs: expect.any(Array),
      models_status: { total: 4, present: 2, missing: ['umt5_xxl_fp8_e4m3fn_scaled.safetensors', 'clip_vision_h.safetensors'] },
      nodes_status: { total: 1, installed: 1, missing: [] },
      ready: false,
    });
    expect(workflowListEntry(entry, () => true, packages).ready).toBe(true);
    expect(workflowListEntry({ id: 'x', dir: '/x', error: 'bad yaml' }, () => true, packages)).toEqual({
      id: 'x',
      name: 'x',
      models_status: { total: 0, present: 0, missing: [] },
      nodes_status: { total: 0, installed: 0, missing: [] },
      ready: false,
      error: 'bad yaml',
    });
  });
});

describe('createModelPresence', () => {
  it('looks under models/<dest>/, or in every folder when the catalogs do not know the file', () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    fs.mkdirSync(path.join(dir, 'checkpoints'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'vae'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'loras', 'sub.safetensors'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'checkpoints', 'sd.safetensors'), 'x');
    fs.writeFileSync(path.join(dir, 'vae', 'v.safetensors'), 'x');
    const dests: Record<string, string> = { 'sd.safetensors': 'checkpoints', 'v.safetensors': 'loras' };
    const isPresent = createModelPresence(dir, (file) => dests[file]);
    expect(isPresent('sd.safetensors')).toBe(true);
    expect(isPresent('v.safetensors')).toBe(false);
    expect(isPresent('unknown.safetensors')).toBe(false);
    fs.writeFileSync(path.join(dir, 'vae', 'unknown.safetensors'), 'x');
    expect(isPresent('unknown.safetensors')).toBe(true);
    expect(isPresent('sub.safetensors')).toBe(false);
    expect(isPresent('../vae/v.safetensors')).toBe(false);
  });
});

describe('model presence on an engine', () => {
  it('counts a model the engine lists with or without its folder, for readiness and for what the engine lacks', () => {
    const info = { CheckpointLoaderSimple: { input: { required: { ckpt_name: [['sdxl/a.safetensors', 'b.safetensors'], {}] } } } } as unknown as Parameters<typeof lacksOn>[1];
    const present = createEngineModelPresence(info);
    expect(present('a.safetensors')).toBe(true);
    expect(present('sdxl/b.safetensors')).toBe(true);
    expect(present('c.safetensors')).toBe(false);
    expect(lacksOn({ required_models: ['a.safetensors', 'other/b.safetensors', 'c.safetensors'], required_nodes: [] }, info)).toEqual(['model c.safetensors']);
  });
});

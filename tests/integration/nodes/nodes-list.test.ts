/**
 * `GET /api/admin/nodes` groups the engine's nodes by `python_module` (versioned and
 * sub-module names of a custom package fold into the package), 503 while the engine is down;
 * `POST /api/admin/engine/restart` restarts a stand-in and refuses an external engine.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../../server/config.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

interface NodesBody {
  packages: Array<{ name: string; nodes: string[]; node_count: number }>;
  total_nodes: number;
  total_packages: number;
}

let t: TestStudio;
beforeAll(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-object-info-'));
  const read = (file: string) => JSON.parse(fs.readFileSync(path.join(APP_ROOT, 'resources', 'standin', file), 'utf8')) as Record<string, Record<string, unknown>>;
  const info = { ...read('object_info.comfyui-0.29.0.json'), ...read('object_info.custom-packs.json') };
  // Versioned and sub-module packages as newer engines and multi-file packs report them.
  info.ImageInvert = { ...info.ImageInvert!, python_module: 'custom_nodes.zeta-pack@1.2.3' };
  info.ImageFlip = { ...info.ImageFlip!, python_module: 'custom_nodes.zeta-pack.nodes.flip' };
  info.ImageCrop = { ...info.ImageCrop!, python_module: 'comfy_api_nodes.nodes_fake' };
  const file = path.join(dir, 'object_info.json');
  fs.writeFileSync(file, JSON.stringify(info));
  t = await startTestStudio({ startEngine: true, env: { STANDIN_OBJECT_INFO: file } });
  await t.studio.engineReady(20_000);
}, 40_000);
afterAll(async () => t.stop());

describe('node packages', () => {
  it('groups nodes into packages, sorted, with totals', async () => {
    const res = await t.api('/api/admin/nodes');
    expect(res.status).toBe(200);
    const body = (await res.json()) as NodesBody;
    const names = body.packages.map((p) => p.name);
    // The real engine ships SaveImageWebsocket as the example custom node `websocket_image_save`.
    expect(names).toEqual(['ComfyUI-VideoHelperSuite', 'Engine Core', 'websocket_image_save', 'zeta-pack']);
    const zeta = body.packages.find((p) => p.name === 'zeta-pack')!;
    expect(zeta).toMatchObject({ name: 'zeta-pack', nodes: ['ImageFlip', 'ImageInvert'], node_count: 2, import_failed: false, disabled: false, workflows: [] });
    // The list names the workflows that need a package (a shipped workflow's `required_nodes`).
    const vhs = body.packages.find((p) => p.name === 'ComfyUI-VideoHelperSuite') as unknown as { workflows: string[] };
    expect(vhs.workflows.length).toBeGreaterThan(0);
    const core = body.packages.find((p) => p.name === 'Engine Core')!;
    expect(core.nodes).toContain('ImageCrop');
    expect(core.nodes).toEqual([...core.nodes].sort());
    expect(body.total_packages).toBe(4);
    expect(body.total_nodes).toBe(body.packages.reduce((n, p) => n + p.node_count, 0));
  });

  it('restarts the stand-in engine, then answers 503 while it is stopped', async () => {
    const restart = await t.api('/api/admin/engine/restart', { method: 'POST' });
    expect(restart.status).toBe(200);
    expect(await restart.json()).toEqual({ status: 'restarted', mode: 'standin' });
    expect(t.studio.engine.state.status).toBe('running');
    await t.studio.engine.stop();
    t.studio.workflows.invalidateNodes();
    const down = await t.api('/api/admin/nodes');
    expect(down.status).toBe(503);
    expect(((await down.json()) as { detail: string }).detail).toMatch(/unreachable/);
  }, 40_000);
});

describe('an external engine', () => {
  it('is not restarted by Studio', async () => {
    const ext = await startTestStudio({ env: { ENGINE_MODE: 'external' } });
    try {
      const res = await ext.api('/api/admin/engine/restart', { method: 'POST' });
      expect(res.status).toBe(409);
      expect(((await res.json()) as { detail: string }).detail).toMatch(/external/);
    } finally {
      await ext.stop();
    }
  });
});

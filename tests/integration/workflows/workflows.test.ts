/**
 * Workflow routes against a Studio whose stand-in engine serves the real `object_info` dumps:
 * seeding, the list with readiness, one workflow, broken manifests, and graph building in both
 * formats (the UI format checked with the engine frontend's own rules).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UiWorkflow } from '../../../server/workflows/types.js';
import type { ApiGraph } from '../../../server/engine/engine-graph.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { until } from '../../helpers/studio-ws.js';
import { checkUiWorkflow, engineObjectInfo, uiToApi } from '../../unit/workflows/helpers.js';

let t: TestStudio;
let fixtureDir: string;

beforeAll(async () => {
  // Recent core plus VideoHelperSuite and friends: every shipped workflow's classes are known.
  fixtureDir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-objinfo-'));
  const objectInfoFile = path.join(fixtureDir, 'object_info.json');
  fs.writeFileSync(objectInfoFile, JSON.stringify(engineObjectInfo()));
  t = await startTestStudio({ startEngine: true, env: { STANDIN_OBJECT_INFO: objectInfoFile } });
  await t.studio.engineReady();
});

afterAll(async () => {
  await t?.stop();
  fs.rmSync(fixtureDir, { recursive: true, force: true });
});

interface Entry {
  id: string;
  name: string;
  type: string;
  inputs: { id: string; type: string }[];
  models_status: { total: number; present: number; missing: string[] };
  nodes_status: { total: number; installed: number; missing: string[] };
  ready: boolean;
  error?: string;
}

const SHIPPED = ['image-filter', 'img2vid-wan', 'txt2img-sd15', 'txt2img-sdxl', 'txt2img-sdxl-lora'];

function buildForm(params?: Record<string, unknown>, image?: string): FormData {
  const form = new FormData();
  if (params) form.append('params', JSON.stringify(params));
  if (image) form.append('input_image', new Blob([new Uint8Array([1, 2, 3])]), image);
  return form;
}

async function build(id: string, format: 'api' | 'workflow', params?: Record<string, unknown>, image?: string): Promise<Response> {
  return t.api(`/api/run/${id}/build?format=${format}`, { method: 'POST', body: buildForm(params, image) });
}

describe('workflows on disk', () => {
  it('seeds STUDIO_DIR/workflows with index.json on first boot', () => {
    const index = JSON.parse(fs.readFileSync(path.join(t.dir, 'workflows', 'index.json'), 'utf8')) as { version: number; workflows: { id: string }[] };
    expect(Number.isInteger(index.version)).toBe(true);
    expect(index.workflows.map((w) => w.id).sort()).toEqual(SHIPPED);
    for (const id of SHIPPED) expect(fs.existsSync(path.join(t.dir, 'workflows', id, 'manifest.yaml'))).toBe(true);
  });
});

describe('GET /api/admin/workflows', () => {
  it('lists the index and every workflow with its readiness', async () => {
    const res = await t.api('/api/admin/workflows');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { version: number; date: string; workflows: Entry[] };
    expect(Number.isInteger(body.version)).toBe(true);
    expect(body.date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
    const byId = new Map(body.workflows.map((w) => [w.id, w]));
    expect([...byId.keys()].sort()).toEqual(SHIPPED);

    expect(byId.get('image-filter')).toMatchObject({
      type: 'static',
      models_status: { total: 0, present: 0, missing: [] },
      nodes_status: { total: 0, installed: 0, missing: [] },
      ready: true,
    });
    expect(byId.get('txt2img-sdxl')).toMatchObject({
      models_status: { total: 1, present: 0, missing: ['sd_xl_base_1.0.safetensors'] },
      ready: false,
    });
    // VideoHelperSuite is among the engine's packages (custom_nodes.ComfyUI-VideoHelperSuite).
    expect(byId.get('img2vid-wan')?.nodes_status).toEqual({ total: 1, installed: 1, missing: [] });
    expect(byId.get('img2vid-wan')?.models_status.missing).toHaveLength(4);
    expect(byId.get('txt2img-sdxl-lora')?.type).toBe('dynamic');
  });

  it('counts a model as present once its file is under models/<dest>/', async () => {
    const dir = path.join(t.dir, 'models', 'checkpoints');
    fs.mkdirSync(dir, { recursive: true });
    // A few bytes where the catalog says 6.94 GB is a cut-off file, not the model: not ready.
    fs.writeFileSync(path.join(dir, 'sd_xl_base_1.0.safetensors'), 'weights');
    try {
      const short = (await (await t.api('/api/admin/workflows/txt2img-sdxl')).json()) as Entry;
      expect(short.models_status).toEqual({ total: 1, present: 0, missing: ['sd_xl_base_1.0.safetensors'] });
      expect(short.ready).toBe(false);
      // The catalog's size (a sparse file: no disk is used).
      fs.truncateSync(path.join(dir, 'sd_xl_base_1.0.safetensors'), 6.94e9);
      const entry = (await (await t.api('/api/admin/workflows/txt2img-sdxl')).json()) as Entry;
      expect(entry.models_status).toEqual({ total: 1, present: 1, missing: [] });
      expect(entry.ready).toBe(true);
    } finally {
      fs.rmSync(path.join(dir, 'sd_xl_base_1.0.safetensors'));
    }
  });

  it('reports a broken manifest on that workflow only, with an event, and refuses to run it', async () => {
    const dir = path.join(t.dir, 'workflows', 'broken-one');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'manifest.yaml'), 'id: broken-one\nname: [unclosed\n');
    try {
      const res = await t.api('/api/admin/workflows');
      expect(res.status).toBe(200);
      const body = (await res.json()) as { workflows: Entry[] };
      const broken = body.workflows.find((w) => w.id === 'broken-one');
      expect(broken?.ready).toBe(false);
      expect(typeof broken?.error).toBe('string');
      expect(body.workflows.filter((w) => !w.error).map((w) => w.id).sort()).toEqual(SHIPPED);
      const events = (await (await t.api('/api/admin/events?types=workflow.invalid')).json()) as { data: { workflow_id: string } }[];
      expect(events.some((e) => e.data.workflow_id === 'broken-one')).toBe(true);
      expect((await t.api('/api/admin/workflows/broken-one')).status).toBe(200);
      const form = buildForm({});
      expect((await t.api('/api/run/broken-one/execute', { method: 'POST', body: form })).status).toBe(500);
      expect((await build('broken-one', 'api')).status).toBe(500);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('GET /api/admin/workflows/{id} and /api/run/{id}', () => {
  it('answers the manifest plus readiness', async () => {
    for (const route of ['/api/admin/workflows/img2vid-wan', '/api/run/img2vid-wan']) {
      const res = await t.api(route);
      expect(res.status).toBe(200);
      const body = (await res.json()) as Entry;
      expect(body).toMatchObject({ id: 'img2vid-wan', type: 'static', ready: false });
      expect(body.inputs.map((i) => i.type).sort()).toEqual(['image', 'int', 'int', 'seed', 'text', 'text']);
      expect(body).toHaveProperty('models_status');
      expect(body).toHaveProperty('nodes_status');
    }
  });

  it('answers 404 with a detail for an unknown workflow', async () => {
    for (const route of ['/api/admin/workflows/nope', '/api/run/nope']) {
      const res = await t.api(route);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { detail: string }).detail).toContain('nope');
    }
  });
});

describe('POST /api/run/{id}/build', () => {
  it('format=api (the default) returns the flat graph with typed values and nothing executed', async () => {
    const res = await t.api('/api/run/image-filter/build', { method: 'POST', body: buildForm({ _existing_input_image: 'cat.png', seed: 7, blur_radius: '5' }) });
    expect(res.status).toBe(200);
    const graph = (await res.json()) as ApiGraph;
    expect(graph['1']).toEqual({ class_type: 'LoadImage', inputs: { image: 'cat.png' }, _meta: { title: 'Load Image' } });
    expect(graph['2']?.inputs).toEqual({ image: ['1', 0], seed: 7, strength: 0.3 });
    expect(graph['3']?.inputs.blur_radius).toBe(5);
    expect(graph['4']?.inputs.filename_prefix).toBe('filtered');
    expect(t.studio.jobs.count()).toBe(0);
  });

  it('escapes text safely and resolves a -1 seed', async () => {
    const text = 'quote " backslash \\ newline \n {{positive}}';
    const graph = (await (await build('txt2img-sdxl', 'api', { positive: text, seed: -1 })).json()) as ApiGraph;
    expect(graph['6']?.inputs.text).toBe(text);
    const seed = graph['3']?.inputs.seed;
    expect(Number.isSafeInteger(seed)).toBe(true);
    expect(seed).toBeGreaterThanOrEqual(0);
  });

  it('names an uploaded input_image after the file (nothing is uploaded)', async () => {
    const graph = (await (await build('image-filter', 'api', {}, 'holiday.png')).json()) as ApiGraph;
    expect(graph['1']?.inputs.image).toBe('holiday.png');
    expect(fs.readdirSync(path.join(t.dir, 'assets', 'input'))).not.toContain('holiday.png');
  });

  it('answers 400 for a bad format or bad params, 404 for an unknown workflow', async () => {
    expect((await t.api('/api/run/image-filter/build?format=png', { method: 'POST', body: buildForm({}) })).status).toBe(400);
    expect((await build('image-filter', 'api', { blur_radius: 'lots' })).status).toBe(400);
    expect((await build('nope', 'api')).status).toBe(404);
  });

  it.each([0, 1, 3])('assembles the dynamic workflow with %i LoRA block(s), chained and rewired', async (count) => {
    const loras = Array.from({ length: count }, (_, i) => ({ name: `style_${i}.safetensors`, strength: 0.5 + i / 10 }));
    const res = await build('txt2img-sdxl-lora', 'api', { loras, seed: 11 });
    expect(res.status).toBe(200);
    const graph = (await res.json()) as ApiGraph;
    const ids = Object.keys(graph);
    expect(ids.sort((a, b) => Number(a) - Number(b))).toEqual(ids.map((_, i) => String(i + 1)));
    const of = (cls: string) => Object.entries(graph).filter(([, n]) => n.class_type === cls);
    const [[ckpt]] = of('CheckpointLoaderSimple') as [[string, ApiGraph[string]]];
    const chain = of('LoraLoader');
    expect(chain).toHaveLength(count);
    let model: unknown = [ckpt, 0];
    let clip: unknown = [ckpt, 1];
    chain.forEach(([id, node], i) => {
      expect(node.inputs).toMatchObject({ lora_name: `style_${i}.safetensors`, strength_model: loras[i]!.strength, model, clip });
      model = [id, 0];
      clip = [id, 1];
    });
    const [[, sampler]] = of('KSampler') as [[string, ApiGraph[string]]];
    expect(sampler.inputs.model).toEqual(model);
    expect(sampler.inputs.seed).toBe(11);
    for (const [, encode] of of('CLIPTextEncode')) expect(encode.inputs.clip).toEqual(clip);
    expect(of('ImageUpscaleWithModel')).toHaveLength(0);
    // Every link points at a node of the graph.
    for (const node of Object.values(graph)) {
      for (const value of Object.values(node.inputs)) {
        if (Array.isArray(value) && value.length === 2 && typeof value[1] === 'number') expect(graph[String(value[0])]).toBeDefined();
      }
    }
  });

  it('adds the optional upscale block when asked', async () => {
    const graph = (await (await build('txt2img-sdxl-lora', 'api', { upscale: true })).json()) as ApiGraph;
    const up = Object.entries(graph).find(([, n]) => n.class_type === 'ImageUpscaleWithModel')!;
    const save = Object.values(graph).find((n) => n.class_type === 'SaveImage')!;
    expect(save.inputs.images).toEqual([up[0], 0]);
  });

  it.each(SHIPPED)('format=workflow converts %s into the engine UI format that round-trips', async (id) => {
    const params = { _existing_input_image: 'start.png', loras: id === 'txt2img-sdxl-lora' ? [{ name: 'a.safetensors', strength: 1 }] : undefined, seed: 5 };
    const api = (await (await build(id, 'api', params)).json()) as ApiGraph;
    const res = await build(id, 'workflow', params);
    expect(res.status).toBe(200);
    const ui = (await res.json()) as UiWorkflow & { extra: { missing_node_types?: string[] } };
    expect(checkUiWorkflow(ui)).toEqual([]);
    expect(ui.extra.missing_node_types ?? []).toEqual([]);
    const objectInfo = engineObjectInfo();
    const back = uiToApi(ui, objectInfo);
    // VHS stores its widgets by name and carries extras; compare what the API graph set.
    for (const [nodeId, node] of Object.entries(api)) {
      expect(back[nodeId]?.class_type).toBe(node.class_type);
      for (const [name, value] of Object.entries(node.inputs)) expect(back[nodeId]?.inputs[name], `${nodeId}.${name}`).toEqual(value);
    }
    const seedNode = ui.nodes.find((n) => Array.isArray(n.widgets_values) && ['KSampler', 'ImageAddNoise'].includes(n.type));
    expect(seedNode?.widgets_values).toContain('fixed');
  });
});

describe('the node list cache', () => {
  it('is refreshed after the engine restarts', async () => {
    const before = await t.studio.workflows.objectInfo();
    expect(before).toHaveProperty('VHS_VideoCombine');
    await t.studio.engine.restart();
    await t.studio.engineReady();
    // A new object: the cache was dropped and fetched again from the restarted engine.
    const after = await until(async () => {
      const info = await t.studio.workflows.objectInfo();
      return info !== before ? info : undefined;
    }, 'a fresh object_info');
    expect(after).toHaveProperty('VHS_VideoCombine');
  });
});

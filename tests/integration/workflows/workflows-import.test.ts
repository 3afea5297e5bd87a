/**
 * `POST /api/admin/workflows/import` against a Studio whose stand-in engine serves the real
 * ComfyUI 0.29.0 `object_info`: each form a workflow comes in, the files written like a shipped
 * workflow, the list with readiness, bad files, and a run to completion on the stand-in with a
 * changed prompt that reaches the submitted graph.
 *
 * Order matters (one Studio for the file): later tests use the workflows earlier ones imported
 * (`my-fox-flow` is exported, `fox-api` is the taken id of the 409), so run them in file order.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute, plantModels, SAMPLE_PNG, waitForJob } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { classicApi, classicUi, img2imgUi, pngWithText } from '../../fixtures/workflow-import/fixtures.js';

let t: TestStudio;

beforeAll(async () => {
  t = await startTestStudio({ startEngine: true });
  await t.studio.engineReady();
  plantModels(t.dir, { checkpoints: ['sd_xl_base_1.0.safetensors'] });
});

afterAll(async () => {
  await t?.stop();
});

interface ImportBody {
  id: string;
  manifest: { id: string; name: string; category: string; type: string; inputs: { id: string; type: string; default?: unknown }[]; required_models: string[]; required_nodes: string[]; node_sources?: Record<string, string> };
  warnings: string[];
  detail?: string;
}

async function importFile(data: Buffer | string, fileName: string, fields: Record<string, string> = {}): Promise<{ status: number; body: ImportBody }> {
  const form = new FormData();
  form.append('file', new Blob([typeof data === 'string' ? data : new Uint8Array(data)]), fileName);
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  const res = await t.api('/api/admin/workflows/import', { method: 'POST', body: form });
  return { status: res.status, body: (await res.json()) as ImportBody };
}

async function listEntry(id: string): Promise<Record<string, unknown> | undefined> {
  const list = (await (await t.api('/api/admin/workflows')).json()) as { version: number; workflows: Record<string, unknown>[] };
  return list.workflows.find((w) => w.id === id);
}

async function submittedGraph(promptId: string): Promise<Record<string, { class_type: string; inputs: Record<string, unknown> }>> {
  const history = (await (await fetch(`${t.studio.engine.url}/history/${promptId}`)).json()) as Record<string, { prompt: unknown[] }>;
  return history[promptId]!.prompt[2] as Record<string, { class_type: string; inputs: Record<string, unknown> }>;
}

describe('importing a workflow', () => {
  it('stores the editor format like a shipped workflow, lists it ready, and runs it with a changed prompt', async () => {
    const indexBefore = JSON.parse(fs.readFileSync(path.join(t.dir, 'workflows', 'index.json'), 'utf8')) as { version: number };
    const { status, body } = await importFile(JSON.stringify(classicUi()), 'My Fox Flow.json', { category: 'mine' });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.id).toBe('my-fox-flow');
    expect(body.manifest).toMatchObject({ id: 'my-fox-flow', name: 'My Fox Flow', category: 'mine', type: 'static', required_models: ['sd_xl_base_1.0.safetensors'], required_nodes: [] });
    expect(body.manifest.inputs.map((i) => i.id)).toEqual(['positive', 'negative', 'seed', 'steps', 'cfg', 'width', 'height', 'batch_size']);

    const folder = path.join(t.dir, 'workflows', 'my-fox-flow');
    expect(parseYaml(fs.readFileSync(path.join(folder, 'manifest.yaml'), 'utf8'))).toMatchObject({ id: 'my-fox-flow', version: 1 });
    const stored = JSON.parse(fs.readFileSync(path.join(folder, 'workflow.json'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(stored).sort()).toEqual(Object.keys(classicApi()).sort());
    const index = JSON.parse(fs.readFileSync(path.join(t.dir, 'workflows', 'index.json'), 'utf8')) as { version: number; workflows: { id: string }[] };
    expect(index.version).toBe(indexBefore.version + 1);
    expect(index.workflows.map((w) => w.id)).toContain('my-fox-flow');
    expect(fs.readdirSync(path.join(t.dir, 'workflows')).filter((name) => name.startsWith('.'))).toEqual([]);

    const entry = await listEntry('my-fox-flow');
    expect(entry).toMatchObject({ ready: true, models_status: { total: 1, present: 1, missing: [] }, nodes_status: { total: 0, missing: [] } });
    expect(entry).not.toHaveProperty('error');

    const run = await execute(t.api, 'my-fox-flow', { params: { positive: 'a blue whale breaching', steps: 3 } });
    const job = await waitForJob(t.api, run.prompt_id);
    expect(job.status).toBe('completed');
    const graph = await submittedGraph(run.prompt_id);
    expect(graph['6']!.inputs.text).toBe('a blue whale breaching');
    expect(graph['7']!.inputs.text).toBe('blurry');
    expect(graph['3']!.inputs.steps).toBe(3);
    // The primitive's one seed reaches both samplers, freshly drawn (default −1).
    expect(graph['3']!.inputs.seed).toBe(run.seeds.seed);
    expect(graph['12']!.inputs.noise_seed).toBe(run.seeds.seed);
  });

  it('imports the API format and a PNG carrying its workflow', async () => {
    const api = await importFile(JSON.stringify(classicApi()), 'fox_api.json', { id: 'fox-api', name: 'Fox (API)' });
    expect(api.status, JSON.stringify(api.body)).toBe(200);
    expect(api.body.manifest.inputs.map((i) => i.id)).toEqual(['positive', 'negative', 'seed', 'steps', 'cfg', 'width', 'height', 'batch_size']);
    const png = await importFile(pngWithText({ prompt: JSON.stringify(classicApi()), workflow: JSON.stringify(img2imgUi()) }), 'ComfyUI_00001_.png');
    expect(png.status, JSON.stringify(png.body)).toBe(200);
    expect(png.body.id).toBe('comfyui_00001_'.replace(/_/g, '-').replace(/-+$/, ''));
    expect(png.body.manifest.inputs.map((i) => i.id)).toContain('image');
  });

  it('runs an image-to-image import with an uploaded image', async () => {
    const { body } = await importFile(JSON.stringify(img2imgUi()), 'paint.json');
    const run = await execute(t.api, body.id, { image: { data: fs.readFileSync(SAMPLE_PNG), name: 'photo.png' }, params: { positive: 'oil painting' } });
    expect((await waitForJob(t.api, run.prompt_id)).status).toBe('completed');
    const graph = await submittedGraph(run.prompt_id);
    expect(graph['10']!.inputs.image).toMatch(/photo/);
    expect(graph['6']!.inputs.text).toBe('oil painting');
  });

  it('lists a node type the stand-in lacks as a required package with its install URL; the workflow is not ready', async () => {
    const graph = { ...classicApi(), '20': { class_type: 'ImageResizeKJ', inputs: { image: ['8', 0], width: 512, height: 512 } } };
    const { status, body } = await importFile(JSON.stringify(graph), 'kj.json');
    expect(status).toBe(200);
    expect(body.manifest.required_nodes).toEqual(['ComfyUI-KJNodes']);
    expect(body.manifest.node_sources).toEqual({ 'ComfyUI-KJNodes': 'https://github.com/kijai/ComfyUI-KJNodes' });
    expect(await listEntry(body.id)).toMatchObject({ ready: false, nodes_status: { total: 1, installed: 0, missing: ['ComfyUI-KJNodes'] } });
  });

  it('test-runs an import with its defaults; the stand-in runs one whose model is missing (a test card), as the Run page promises', async () => {
    const run = await execute(t.api, 'fox-api');
    expect((await waitForJob(t.api, run.prompt_id)).status).toBe('completed');
    expect((await submittedGraph(run.prompt_id))['6']!.inputs.text).toBe('a red fox in the snow');
    const graph = classicApi();
    graph['4']!.inputs.ckpt_name = 'not_here.safetensors';
    const { body } = await importFile(JSON.stringify(graph), 'missing.json');
    expect(await listEntry(body.id)).toMatchObject({ ready: false, models_status: { missing: ['not_here.safetensors'] } });
    const missing = await execute(t.api, body.id);
    expect((await waitForJob(t.api, missing.prompt_id)).status).toBe('completed');
  });

  it('exports a workflow folder as a ZIP that an import restores exactly (static and dynamic)', async () => {
    for (const [id, files] of [['my-fox-flow', ['manifest.yaml', 'workflow.json']], ['txt2img-sdxl-lora', null]] as const) {
      const res = await t.api(`/api/admin/workflows/${id}/export`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/zip');
      const zip = Buffer.from(await res.arrayBuffer());
      const { status, body } = await importFile(zip, `${id}.zip`, { id: `${id}-copy` });
      expect(status, JSON.stringify(body)).toBe(200);
      const original = path.join(t.dir, 'workflows', id);
      const copy = path.join(t.dir, 'workflows', `${id}-copy`);
      const listing = (dir: string) => fs.readdirSync(dir, { recursive: true }).map(String).sort();
      expect(listing(copy)).toEqual(files ? [...files] : listing(original));
      for (const rel of listing(copy).filter((name) => name.endsWith('.json'))) {
        expect(fs.readFileSync(path.join(copy, rel), 'utf8')).toBe(fs.readFileSync(path.join(original, rel), 'utf8'));
      }
      const before = (await listEntry(id)) as Record<string, unknown>;
      const after = (await listEntry(`${id}-copy`)) as Record<string, unknown>;
      expect({ ...after, id }).toEqual(before);
    }
    // Without a new id the export's own id is taken.
    const zip = Buffer.from(await (await t.api('/api/admin/workflows/my-fox-flow/export')).arrayBuffer());
    expect(await importFile(zip, 'again.zip')).toMatchObject({ status: 409 });
    expect((await t.api('/api/admin/workflows/nope/export')).status).toBe(404);
    expect(await importFile(Buffer.concat([zip.subarray(0, 40), Buffer.alloc(10)]), 'cut.zip')).toMatchObject({ status: 400, body: { detail: expect.stringMatching(/ZIP is damaged/) } });
  });

  it('keeps a literal {{x}} in prompt text as text: the import answers 200 and the run submits it unchanged', async () => {
    const graph = classicApi();
    graph['6']!.inputs.text = 'a {{style}} fox';
    graph['20'] = { class_type: 'CLIPTextEncode', inputs: { text: '{{x}} and \\{{y}}', clip: ['4', 1] } };
    graph['12']!.inputs.positive = ['20', 0];
    const { status, body } = await importFile(JSON.stringify(graph), 'braces.json');
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.manifest.inputs.find((i) => i.id === 'positive')).toMatchObject({ default: 'a {{style}} fox' });
    const run = await execute(t.api, body.id);
    expect((await waitForJob(t.api, run.prompt_id)).status).toBe('completed');
    const submitted = await submittedGraph(run.prompt_id);
    expect(submitted['6']!.inputs.text).toBe('a {{style}} fox');
    expect(submitted['20']!.inputs.text).toBe('{{x}} and \\{{y}}');
  });

  it('matches a model file by the SHA-256 the editor recorded when no catalog knows its name, and names the catalog file', async () => {
    const SDXL_SHA256 = '31e35c80fc4829d14f90153f4c74cd59c90b779f6afe05a74cd6120b893f7e5b';
    const renamedUi = (hash: string | null) => {
      const ui = classicUi();
      const loader = (ui.nodes as { type: string; widgets_values: unknown[]; properties: Record<string, unknown> }[]).find((n) => n.type === 'CheckpointLoaderSimple')!;
      loader.widgets_values = ['SDXL\\my-base.safetensors'];
      if (hash) loader.properties.models = [{ name: 'my-base.safetensors', url: 'https://example.com/my-base.safetensors', hash, hash_type: 'SHA256', directory: 'checkpoints' }];
      return ui;
    };
    const matched = await importFile(JSON.stringify(renamedUi(SDXL_SHA256.toUpperCase())), 'by-hash.json');
    expect(matched.status, JSON.stringify(matched.body)).toBe(200);
    expect(matched.body.manifest.required_models).toEqual(['sd_xl_base_1.0.safetensors']);
    expect(matched.body.warnings.join('\n')).toMatch(/SDXL\\my-base\.safetensors" is the catalog's "sd_xl_base_1\.0\.safetensors" \(same SHA-256\)/);
    const stored = JSON.parse(fs.readFileSync(path.join(t.dir, 'workflows', matched.body.id, 'workflow.json'), 'utf8')) as Record<string, { inputs: Record<string, unknown> }>;
    expect(stored['4']!.inputs.ckpt_name).toBe('sd_xl_base_1.0.safetensors');
    expect(await listEntry(matched.body.id)).toMatchObject({ ready: true, models_status: { missing: [] } });

    const unmatched = await importFile(JSON.stringify(renamedUi('0'.repeat(64))), 'by-name.json');
    expect(unmatched.body.manifest.required_models).toEqual(['SDXL\\my-base.safetensors']);
    expect(unmatched.body.warnings.join('\n')).toMatch(/is in no catalog/);
  });

  it('answers 400 saying what is wrong, and 409 for a taken id', async () => {
    expect(await importFile('just text', 'notes.txt')).toMatchObject({ status: 400, body: { detail: expect.stringMatching(/not a workflow/) } });
    expect(await importFile(fs.readFileSync(SAMPLE_PNG), 'plain.png')).toMatchObject({ status: 400, body: { detail: expect.stringMatching(/carries no "workflow" or "prompt"/) } });
    const dangling = classicUi();
    (dangling.links as unknown[][]).push([99, 77, 0, 3, 0, 'MODEL']);
    expect(await importFile(JSON.stringify(dangling), 'x.json')).toMatchObject({ status: 400, body: { detail: expect.stringMatching(/link 99 comes from node 77/) } });
    expect(await importFile(JSON.stringify(classicApi()), 'again.json', { id: 'fox-api' })).toMatchObject({ status: 409 });
    expect(await importFile(JSON.stringify(classicApi()), 'again.json', { id: '../evil' })).toMatchObject({ status: 400 });
    expect(fs.existsSync(path.join(t.dir, 'evil'))).toBe(false);
  });

  it('answers 413 naming the limit for a small file that would expand past it', async () => {
    // Sixteen levels of subgraphs, each holding the next twice: a few KB that would be 65 536 nodes.
    const subgraphs = Array.from({ length: 16 }, (_, level) => ({
      id: `s${level}`,
      nodes: level === 15 ? [{ id: 1, type: 'EmptyLatentImage', widgets_values: [512, 512, 1] }] : [1, 2].map((id) => ({ id, type: `s${level + 1}` })),
      links: [],
    }));
    const bomb = JSON.stringify({ nodes: [{ id: 1, type: 's0' }], links: [], definitions: { subgraphs } });
    expect(await importFile(bomb, 'bomb.json')).toMatchObject({ status: 413, body: { detail: expect.stringMatching(/more than 10000 nodes/) } });
    expect((await t.api('/api/admin/workflows')).status).toBe(200);
  });
});

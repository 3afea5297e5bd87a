import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CatalogFile } from '../../../server/contracts/catalog.contract.js';
import { catalogOf, hubEntry, sha256, waitFor, writeCatalogs } from '../../helpers/fake-catalogs.js';
import { startFakeFileServer, type FakeFileServer } from '../../helpers/fake-file-server.js';
import { seedHub, versionRecord } from '../../helpers/fake-hub-data.js';
import { startFakeHub, type FakeHub } from '../../helpers/fake-hub-server.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let dir: string;
let hub: FakeHub;
let t: TestStudio;
let cdn: FakeFileServer | null = null;

async function boot(models: CatalogFile = catalogOf([]), loras: CatalogFile = catalogOf([], 'sdxl_loras')): Promise<void> {
  writeCatalogs(dir, { models, loras });
  t = await startTestStudio({ dir, env: { MODELHUB_BASE_URL: hub.url, MODELHUB_API_KEY: 'hub-secret' } });
}

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
  hub = await startFakeHub();
  hub.apiKeys.add('hub-secret');
  seedHub(hub);
});

afterEach(async () => {
  await t.stop();
  await hub.close();
  await cdn?.close();
  cdn = null;
  fs.rmSync(dir, { recursive: true, force: true });
});

const readCatalog = (name: 'models' | 'loras') => JSON.parse(fs.readFileSync(path.join(dir, 'catalogs', `${name}.json`), 'utf8')) as CatalogFile;
const post = async (p: string) => {
  const res = await t.api(p, { method: 'POST' });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};
const entriesOf = (catalog: CatalogFile) => catalog.categories.flatMap((c) => c.models.map((m) => ({ ...m, category: c.id })));

describe('POST /api/admin/modelhub/add/{version_id}', () => {
  it('adds each hub type where the type table says, without downloading anything', async () => {
    await boot();
    const expected: Array<[number, string, string, string]> = [
      [101, 'juggernautXL_v9.safetensors', 'checkpoints', 'checkpoints'],
      [102, 'add_detail.safetensors', 'loras', 'loras'],
      [103, 'sdxl_vae.safetensors', 'vae', 'vae'],
      [104, 'easynegative.safetensors', 'embeddings', 'embeddings'],
      [105, 'control_canny.safetensors', 'controlnet', 'controlnet'],
      [106, '4x-UltraSharp.pth', 'upscalers', 'upscale_models'],
      [107, 'flux1-dev-fp8.safetensors', 'diffusion_models', 'diffusion_models'],
    ];
    let version = readCatalog('models').version;
    for (const [id, file, category, dest] of expected) {
      const { status, body } = await post(`/api/admin/modelhub/add/${id}`);
      expect(status).toBe(200);
      expect(body).toMatchObject({ status: 'added', file, category, dest });
      const catalog = readCatalog('models');
      expect(catalog.version).toBe(version + 1);
      version = catalog.version;
      expect(entriesOf(catalog).find((e) => e.file === file)?.category).toBe(category);
    }
    const jugg = entriesOf(readCatalog('models')).find((e) => e.file === 'juggernautXL_v9.safetensors');
    expect(jugg).toMatchObject({
      name: 'Juggernaut XL v9 [SDXL 1.0 fp16]',
      dest: 'checkpoints',
      size_gb: 2.097,
      base_model: 'SDXL 1.0',
      source: 'modelhub',
      modelhub_version_id: '101',
      modelhub_model_id: '11',
      sha256: '1'.repeat(64),
    });
    expect(entriesOf(readCatalog('models')).find((e) => e.file === 'add_detail.safetensors')).toMatchObject({ trained_words: ['detailed'] });
    expect(entriesOf(readCatalog('models')).find((e) => e.file === 'flux1-dev-fp8.safetensors')?.name).toBe('Flux Dev fp8 [Flux.1 D fp8]');

    const listed = (await (await t.api('/api/admin/models')).json()) as { categories: Array<{ models: Array<{ file: string; status: string }> }> };
    for (const entry of listed.categories.flatMap((c) => c.models)) expect(entry.status).toBe('not_downloaded');
    expect(fs.readdirSync(path.join(dir, 'models')).flatMap((d) => fs.readdirSync(path.join(dir, 'models', d)))).toEqual([]);
    expect(hub.requests.some((r) => r.url.startsWith('/api/download/'))).toBe(false);
  });

  it('names the file to download when the version\'s primary file is not the model file', async () => {
    await boot();
    const record = versionRecord({ id: 150, modelId: 15, model: 'Ink Style', version: 'v2', type: 'LORA', baseModel: 'SDXL 1.0', file: 'ink_style.safetensors' });
    const [modelFile] = record.files as Array<Record<string, unknown>>;
    // The hub's plain download URL serves the primary file: here a training-data archive.
    record.files = [{ id: 1499, name: 'ink_training.zip', type: 'Training Data', sizeKB: 10, primary: true }, { ...modelFile, primary: false }];
    hub.versions.set('150', record);
    expect((await post('/api/admin/modelhub/add/150')).body).toMatchObject({ status: 'added', file: 'ink_style.safetensors' });
    const entry = entriesOf(readCatalog('models')).find((e) => e.file === 'ink_style.safetensors');
    expect(entry).toMatchObject({ modelhub_version_id: '150', modelhub_file_id: '1500' });
    // A primary model file needs no file id.
    await post('/api/admin/modelhub/add/101');
    expect(entriesOf(readCatalog('models')).find((e) => e.file === 'juggernautXL_v9.safetensors')).not.toHaveProperty('modelhub_file_id');
  });

  it('adds nothing for a version already catalogued, in either catalog', async () => {
    await boot(catalogOf([hubEntry('jugg.safetensors', '101', { dest: 'checkpoints' })]), catalogOf([hubEntry('detail.safetensors', '102')], 'sd15_loras'));
    const before = readCatalog('models');
    for (const [id, catalog, file] of [[101, 'models', 'jugg.safetensors'], [102, 'loras', 'detail.safetensors']] as const) {
      const { status, body } = await post(`/api/admin/modelhub/add/${id}`);
      expect(status).toBe(200);
      expect(body).toMatchObject({ status: 'exists', catalog, file });
    }
    expect(readCatalog('models')).toEqual(before);
    expect(hub.requests.filter((r) => r.url.startsWith('/api/v1/model-versions/'))).toEqual([]);
  });

  it('answers restricted for a generation-only version and adds nothing', async () => {
    await boot();
    const { status, body } = await post('/api/admin/modelhub/add/108');
    expect(status).toBe(200);
    expect(body.status).toBe('restricted');
    expect(String(body.reason)).toContain('usageControl: Generation');
    expect(entriesOf(readCatalog('models'))).toEqual([]);
  });

  it('refuses bad ids, unknown versions, types without a place and a file another entry has', async () => {
    await boot(catalogOf([hubEntry('juggernautXL_v9.safetensors', '555', { dest: 'checkpoints' })]));
    expect((await post('/api/admin/modelhub/add/abc')).status).toBe(400);
    const unknown = await post('/api/admin/modelhub/add/4242');
    expect(unknown.status).toBe(404);
    expect(String(unknown.body.detail)).toContain('4242');
    const poses = await post('/api/admin/modelhub/add/111');
    expect(poses.status).toBe(400);
    expect(String(poses.body.detail)).toContain('Poses');
    const clash = await post('/api/admin/modelhub/add/101');
    expect(clash.status).toBe(409);
  });

  it('downloads an added entry through the hub URL and its redirect, the token never sent to the redirect host', async () => {
    const content = randomBytes(64 * 1024);
    cdn = await startFakeFileServer({ content });
    hub.downloadTo = cdn.url;
    hub.versions.set('102', { ...versionRecord({ id: 102, modelId: 12, model: 'Detail Tweaker', version: 'v1.0', type: 'LORA', baseModel: 'SD 1.5', file: 'add_detail.safetensors', sha: sha256(content).toUpperCase() }) });
    await boot();
    expect((await post('/api/admin/modelhub/add/102')).body.status).toBe('added');
    expect((await post('/api/admin/models/download/add_detail.safetensors')).status).toBe(200);
    await waitFor(() => fs.existsSync(path.join(dir, 'models', 'loras', 'add_detail.safetensors')), 'the download');
    expect(sha256(path.join(dir, 'models', 'loras', 'add_detail.safetensors'))).toBe(sha256(content));
    const origin = hub.requests.find((r) => r.url === '/api/download/models/102');
    expect(origin?.headers.authorization).toBe('Bearer hub-secret');
    expect(cdn.requests.length).toBeGreaterThan(0);
    for (const request of cdn.requests) expect(request.headers.authorization).toBeUndefined();
  });
});

describe('POST /api/admin/modelhub/promote-to-lora/{version_id}', () => {
  it('moves a LoRA into the loras.json category of its base model, both catalogs saved, the map following', async () => {
    await boot();
    for (const id of [102, 109, 110]) await post(`/api/admin/modelhub/add/${id}`);
    const map = async () => ((await (await t.api('/api/admin/models/civitai-map')).json()) as { by_version: Record<string, { catalog: string }> }).by_version;
    expect((await map())['102']?.catalog).toBe('models');
    const versions = { models: readCatalog('models').version, loras: readCatalog('loras').version };

    const moved = await post('/api/admin/modelhub/promote-to-lora/102');
    expect(moved).toEqual({ status: 200, body: { status: 'promoted', file: 'add_detail.safetensors', name: 'Detail Tweaker v1.0 [SD 1.5 fp16]', category: 'sd15_loras', dest: 'loras' } });
    expect(entriesOf(readCatalog('models')).map((e) => e.file)).not.toContain('add_detail.safetensors');
    expect(entriesOf(readCatalog('loras')).find((e) => e.file === 'add_detail.safetensors')).toMatchObject({ category: 'sd15_loras', modelhub_version_id: '102' });
    expect(readCatalog('models').version).toBe(versions.models + 1);
    expect(readCatalog('loras').version).toBe(versions.loras + 1);
    expect((await map())['102']?.catalog).toBe('loras');

    expect((await post('/api/admin/modelhub/promote-to-lora/109')).body.category).toBe('wan_loras');
    expect((await post('/api/admin/modelhub/promote-to-lora/110')).body.category).toBe('sdxl_loras');

    const again = await post('/api/admin/modelhub/promote-to-lora/102');
    expect(again).toMatchObject({ status: 200, body: { status: 'already_in_loras', file: 'add_detail.safetensors' } });
    const loras = (await (await t.api('/api/admin/loras')).json()) as { categories: Array<{ id: string; models: Array<{ file: string }> }> };
    expect(loras.categories.find((c) => c.id === 'sd15_loras')?.models.map((m) => m.file)).toEqual(['add_detail.safetensors']);
  });

  it('answers 404 when the version is not in models.json and 400 when the entry is not a LoRA', async () => {
    await boot(catalogOf([hubEntry('jugg.safetensors', '101', { dest: 'checkpoints' })]));
    const missing = await post('/api/admin/modelhub/promote-to-lora/4242');
    expect(missing.status).toBe(404);
    const checkpoint = await post('/api/admin/modelhub/promote-to-lora/101');
    expect(checkpoint.status).toBe(400);
    expect(String(checkpoint.body.detail)).toContain('not a LoRA');
    expect((await post('/api/admin/modelhub/promote-to-lora/x1')).status).toBe(400);
  });

  it('finishes a promote cut short between its two renames (entry in both catalogs)', async () => {
    const entry = hubEntry('detail.safetensors', '102', { base_model: 'SD 1.5' });
    await boot(catalogOf([entry], 'loras'), catalogOf([entry], 'sd15_loras'));
    const map = (await (await t.api('/api/admin/models/civitai-map')).json()) as { by_version: Record<string, { catalog: string }> };
    expect(map.by_version['102']?.catalog).toBe('loras');
    const { status, body } = await post('/api/admin/modelhub/promote-to-lora/102');
    expect(status).toBe(200);
    expect(body.status).toBe('already_in_loras');
    expect(entriesOf(readCatalog('models'))).toEqual([]);
    expect(entriesOf(readCatalog('loras')).map((e) => e.file)).toEqual(['detail.safetensors']);
  });
});

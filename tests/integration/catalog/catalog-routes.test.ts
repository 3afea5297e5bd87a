import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogFile } from '../../../server/contracts/catalog.contract.js';
import { waitFor } from '../../helpers/fake-catalogs.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

// The shipped catalogs; the hosts point at a closed port so nothing leaves the machine.
const CLOSED = 'http://127.0.0.1:9';
let t: TestStudio;

interface Live {
  version: number;
  date: string;
  stats: Record<string, number>;
  summary?: { total: number; present: number };
  categories: Array<{ id: string; models: Array<{ file: string; status: string; on_disk_bytes: number; size_gb: number; tags: string[] }> }>;
}

const json = async <T>(res: Response | Promise<Response>): Promise<T> => (await (await res).json()) as T;
const entries = (live: Live) => live.categories.flatMap((c) => c.models);
const readCatalog = (name: string) => JSON.parse(fs.readFileSync(path.join(t.dir, 'catalogs', name), 'utf8')) as CatalogFile;

function upload(pathname: string, text: string): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([text], { type: 'application/json' }), 'models.json');
  return t.api(pathname, { method: 'POST', body: form });
}

beforeAll(async () => {
  t = await startTestStudio({ env: { REPOHOST_BASE_URL: CLOSED, MODELHUB_BASE_URL: CLOSED } });
  // One model file on disk before the first listing (the disk numbers are cached for 60 s): 4 KB
  // where the catalog says 6.94 GB, so it is on disk but incomplete.
  fs.mkdirSync(path.join(t.dir, 'models', 'checkpoints'), { recursive: true });
  fs.writeFileSync(path.join(t.dir, 'models', 'checkpoints', 'sd_xl_base_1.0.safetensors'), Buffer.alloc(4096, 1));
});

afterAll(async () => {
  await t.stop();
});

describe('catalog listings', () => {
  it('lists the models catalog with live status and exactly the spec stats', async () => {
    const live = await json<Live>(t.api('/api/admin/models'));
    expect(Object.keys(live.stats).sort()).toEqual(
      ['downloading_count', 'fetching_count', 'free_bytes', 'global_speed', 'models_bytes', 'present_count', 'queued_count', 'total_count'].sort(),
    );
    const all = entries(live);
    expect(live.stats.total_count).toBe(all.length);
    expect(live.stats.present_count).toBe(1);
    expect(live.stats.models_bytes).toBe(4096);
    expect(live.stats.free_bytes).toBeGreaterThan(0);
    const sdxl = all.find((m) => m.file === 'sd_xl_base_1.0.safetensors');
    expect(sdxl).toMatchObject({ status: 'incomplete', on_disk_bytes: 4096 });
    expect(all.filter((m) => m.status === 'not_downloaded')).toHaveLength(all.length - 1);
  });

  it('lists LoRAs without fetching_count, and the LLM catalog with a summary', async () => {
    const loras = await json<Live>(t.api('/api/admin/loras'));
    expect(Object.keys(loras.stats).sort()).toEqual(
      ['downloading_count', 'free_bytes', 'global_speed', 'models_bytes', 'present_count', 'queued_count', 'total_count'].sort(),
    );
    const llm = await json<Live>(t.api('/api/admin/llm/models'));
    expect(llm.stats).toBeUndefined();
    expect(llm.summary).toEqual({ total: entries(llm).length, present: 0 });
    const first = entries(llm)[0]!;
    fs.writeFileSync(path.join(t.dir, 'llm', 'models', first.file), 'gguf');
    expect((await json<Live>(t.api('/api/admin/llm/models'))).summary?.present).toBe(0);
    // A file of the catalog's size (sparse: no disk is used) is the model.
    fs.truncateSync(path.join(t.dir, 'llm', 'models', first.file), Math.round(first.size_gb * 1e9));
    expect((await json<Live>(t.api('/api/admin/llm/models'))).summary?.present).toBe(1);
  });

  it('groups compatible LoRAs by pair and maps hub versions over both catalogs', async () => {
    const pairs = await json<Array<Record<string, string | null>>>(t.api(`/api/admin/loras/compatible/${encodeURIComponent('Wan 2.2 I2V')}`));
    expect(pairs).toEqual([
      {
        pair_id: 'wan22_i2v_lightx2v_4steps_v1',
        name: 'Wan 2.2 I2V LightX2V 4-step v1',
        high: 'wan2.2_i2v_lightx2v_4steps_lora_v1_high_noise.safetensors',
        low: 'wan2.2_i2v_lightx2v_4steps_lora_v1_low_noise.safetensors',
        both: null,
      },
    ]);
    const map = await json<{ by_version: Record<string, Record<string, unknown>>; by_model: Record<string, string[]> }>(t.api('/api/admin/models/civitai-map'));
    expect(map.by_version['10638']).toMatchObject({ file: 'theovercomer8sContrastFix_sd15.safetensors', catalog: 'loras', status: 'missing', modelhub_model_id: '8765' });
    expect(map.by_model['8765']?.sort()).toEqual(['10350', '10638']);
  });
});

describe('catalog moves', () => {
  it('removes an entry only while its file is not on disk, bumping the version', async () => {
    const before = readCatalog('models.json').version;
    expect((await t.api('/api/admin/models/nope.safetensors/catalog', { method: 'DELETE' })).status).toBe(404);
    const onDisk = await t.api('/api/admin/models/sd_xl_base_1.0.safetensors/catalog', { method: 'DELETE' });
    expect(onDisk.status).toBe(409);
    expect((await onDisk.json()) as unknown).toEqual({ detail: expect.stringMatching(/is on disk/) });

    const res = await t.api('/api/admin/models/sd_xl_refiner_1.0.safetensors/catalog', { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'removed', file: 'sd_xl_refiner_1.0.safetensors', catalog: 'models', version: before + 1 });
    const after = readCatalog('models.json');
    expect(after.version).toBe(before + 1);
    expect(after.date).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d$/);
    expect(entries(await json<Live>(t.api('/api/admin/models'))).some((m) => m.file === 'sd_xl_refiner_1.0.safetensors')).toBe(false);
    expect((await t.api('/api/admin/models/download/sd_xl_refiner_1.0.safetensors', { method: 'POST' })).status).toBe(404);

    // LoRAs go through the same endpoint.
    const lora = await t.api('/api/admin/models/ltxv-13b-0.9.7-distilled-lora128.safetensors/catalog', { method: 'DELETE' });
    expect(await lora.json()).toMatchObject({ catalog: 'loras', version: readCatalog('loras.json').version });
  });

  it('imports entries tagged imported, skips known files and rejects invalid files', async () => {
    const before = readCatalog('models.json').version;
    const file = {
      version: 3,
      date: '2026-01-01 00:00',
      categories: [
        {
          id: 'checkpoints',
          name: 'Checkpoints',
          models: [
            { name: 'Known', file: 'sd_xl_base_1.0.safetensors', dest: 'checkpoints', size_gb: 1, source: 'repohost', hosted_repo: 'a/b' },
            { name: 'New one', file: 'new_one.safetensors', dest: 'checkpoints', size_gb: 2, source: 'repohost', hosted_repo: 'a/b', tags: ['x'] },
          ],
        },
        { id: 'brand_new', name: 'Brand new', models: [{ name: 'Hub', file: 'hub.safetensors', dest: 'loras', size_gb: 0.1, source: 'modelhub', modelhub_version_id: 42 }] },
      ],
    };
    const res = await upload('/api/admin/models/import', JSON.stringify(file));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ added: ['new_one.safetensors', 'hub.safetensors'], skipped: ['sd_xl_base_1.0.safetensors'], total_added: 2 });
    const catalog = readCatalog('models.json');
    expect(catalog.version).toBe(before + 1);
    const added = catalog.categories.flatMap((c) => c.models).filter((m) => m.tags.includes('imported'));
    expect(added.map((m) => [m.file, m.tags])).toEqual([
      ['new_one.safetensors', ['x', 'imported']],
      ['hub.safetensors', ['imported']],
    ]);
    expect(catalog.categories.find((c) => c.id === 'brand_new')?.models[0]?.modelhub_version_id).toBe('42');

    const again = await json<{ added: string[]; skipped: string[] }>(upload('/api/admin/models/import', JSON.stringify(file)));
    expect(again.added).toEqual([]);
    expect(readCatalog('models.json').version).toBe(before + 1);

    expect((await upload('/api/admin/models/import', '{not json')).status).toBe(400);
    const invalid = await upload('/api/admin/models/import', JSON.stringify({ categories: [{ id: 'x', name: 'x', models: [{ file: '../evil', name: 'e' }] }] }));
    expect(invalid.status).toBe(400);
    expect(((await invalid.json()) as { detail: string }).detail).toMatch(/^Invalid request catalog file: /);
    expect((await t.api('/api/admin/models/import', { method: 'POST' })).status).toBe(400);
  });
});

describe('install-models and the activity log', () => {
  it('queues the missing (and incomplete) catalogued models of a workflow and skips unknown ones', async () => {
    const wf = path.join(t.dir, 'workflows', 'needs-models');
    fs.mkdirSync(wf, { recursive: true });
    fs.writeFileSync(
      path.join(wf, 'manifest.yaml'),
      [
        'id: needs-models',
        'name: Needs models',
        'type: static',
        'version: 1',
        "date: '2026-01-01 00:00'",
        'required_models:',
        '  - sd_xl_base_1.0.safetensors',
        '  - RealESRGAN_x4plus.pth',
        '  - wan2.2_i2v_lightx2v_4steps_lora_v1_high_noise.safetensors',
        '  - nowhere.safetensors',
        '',
      ].join('\n'),
    );
    fs.writeFileSync(path.join(wf, 'workflow.json'), '{}');
    await t.api('/api/admin/activity-log/clear', { method: 'POST' });

    const res = await t.api('/api/admin/workflows/needs-models/install-models', { method: 'POST' });
    expect(res.status).toBe(200);
    const body = await json<{ queued: string[]; skipped: string[]; message: string }>(res);
    // The 4 KB sd_xl_base file is downloaded again.
    expect(body.queued).toEqual(['sd_xl_base_1.0.safetensors', 'RealESRGAN_x4plus.pth', 'wan2.2_i2v_lightx2v_4steps_lora_v1_high_noise.safetensors']);
    expect(body.skipped).toEqual(['nowhere.safetensors']);
    expect(body.message).toMatch(/Queued 3 model/);
    expect((await t.api('/api/admin/workflows/no-such-workflow/install-models', { method: 'POST' })).status).toBe(404);

    const log = await json<Array<{ message: string; level: string }>>(t.api('/api/admin/activity-log'));
    expect(log.map((l) => l.message)).toEqual(expect.arrayContaining(['Queued RealESRGAN_x4plus.pth']));
    // The closed port makes these fail; deleting them clears the queue (and is not a 404).
    for (const file of body.queued) expect((await t.api(`/api/admin/models/${file}`, { method: 'DELETE' })).status).toBe(200);
    expect((await t.api('/api/admin/activity-log/clear', { method: 'POST' })).status).toBe(200);
    expect(await json(t.api('/api/admin/activity-log'))).toEqual([]);
  });

  it('answers the LLM download and delete endpoints in the spec shapes', async () => {
    const llm = await json<Live>(t.api('/api/admin/llm/models'));
    const file = entries(llm)[1]!.file;
    expect(await json(t.api(`/api/admin/llm/models/download/${file}`, { method: 'POST' }))).toEqual({ status: 'queued', file });
    expect(await json(t.api(`/api/admin/llm/models/download/${file}`, { method: 'POST' }))).toEqual({ status: 'downloading', file });
    expect((await t.api('/api/admin/llm/models/download/nope.gguf', { method: 'POST' })).status).toBe(404);
    const deleted = await t.api(`/api/admin/llm/models/${file}`, { method: 'DELETE' });
    expect(await deleted.json()).toEqual({ status: 'deleted', file });
    await waitFor(async () => {
      const events = await json<Array<{ data: { filename?: string } }>>(t.api('/api/admin/events?types=llm.model.deleted'));
      return events.some((e) => e.data.filename === file);
    }, 'llm.model.deleted');
    expect((await t.api('/api/admin/llm/models/nope.gguf', { method: 'DELETE' })).status).toBe(404);
  });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CatalogFile } from '../../../server/contracts/catalog.contract.js';
import { catalogOf, hubEntry, repoEntry, waitFor, writeCatalogs } from '../../helpers/fake-catalogs.js';
import { startFakeHub, type FakeHub } from '../../helpers/fake-hub-server.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let dir: string;
let hub: FakeHub;
let t: TestStudio;

interface StudioEvent {
  type: string;
  severity: string;
  data: Record<string, unknown>;
}

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
  hub = await startFakeHub();
  hub.apiKeys.add('hub-key');
  hub.versions.set('1001', {
    id: 1001,
    modelId: 501,
    name: 'v2.0',
    baseModel: 'SDXL 1.0',
    trainedWords: ['detailed', 'sharp focus'],
    createdAt: '2025-03-01T10:00:00.000Z',
    updatedAt: '2025-04-02T11:00:00.000Z',
    model: { name: 'Detail Tweaker', type: 'LORA', nsfw: false },
    files: [
      { id: 9, name: 'other.safetensors', sizeKB: 10, primary: false, metadata: { fp: 'fp32' }, hashes: { SHA256: 'AB' } },
      { id: 10, name: 'detail.safetensors', sizeKB: 12, primary: true, metadata: { fp: 'fp16', format: 'SafeTensor' }, hashes: { SHA256: 'CD' } },
    ],
  });
  hub.models.set('501', { id: 501, name: 'Detail Tweaker', type: 'LORA', tags: ['Detail', 'tool', 'base_model:x'] });
  hub.repos.set('org/vae-repo', {
    id: 'org/vae-repo',
    sha: 'a'.repeat(40),
    lastModified: '2025-05-05T05:05:05.000Z',
    createdAt: '2024-01-01T00:00:00.000Z',
    gated: false,
    pipeline_tag: 'text-to-image',
    tags: ['diffusers', 'license:openrail'],
    cardData: { base_model: 'stabilityai/sdxl', license: 'openrail', tags: ['vae'] },
  });
  hub.gated.add('org/gated-repo');
  writeCatalogs(dir, {
    models: catalogOf([
      repoEntry('vae.safetensors', { hosted_repo: 'org/vae-repo', dest: 'vae', tags: ['vae', 'sdxl'] }),
      repoEntry('gated.safetensors', { hosted_repo: 'org/gated-repo', base_model: 'Flux.1 D' }),
    ]),
    loras: catalogOf([hubEntry('detail.safetensors', '1001', { name: 'old name', tags: ['mine'] })], 'sdxl_loras'),
  });
  t = await startTestStudio({ dir, env: { MODELHUB_BASE_URL: hub.url, REPOHOST_BASE_URL: hub.url, MODELHUB_API_KEY: 'hub-key' } });
});

afterEach(async () => {
  await t.stop();
  await hub.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const readCatalog = (name: string) => JSON.parse(fs.readFileSync(path.join(dir, 'catalogs', name), 'utf8')) as CatalogFile;

describe('metadata fetch', () => {
  it('updates entries from the model hub and the repository host in the background', async () => {
    const started = await t.api('/api/admin/models/fetch-metadata', { method: 'POST' });
    expect(started.status).toBe(200);
    expect(await started.json()).toEqual({ status: 'started', total: 3 });

    const batch = await waitFor(async () => {
      const events = (await (await t.api('/api/admin/events?types=model.metadata.*')).json()) as StudioEvent[];
      return events.find((event) => event.type === 'model.metadata.batch.completed');
    }, 'the batch to complete');
    expect(batch.severity).toBe('warning');
    expect(batch.data).toEqual({ total: 3, fetched: 2, failed: 1 });

    const status = (await (await t.api('/api/admin/models/metadata-status')).json()) as Record<string, { status: string; error?: string }>;
    expect(status['detail.safetensors']).toEqual({ status: 'done' });
    expect(status['vae.safetensors']).toEqual({ status: 'done' });
    expect(status['gated.safetensors']?.status).toBe('error');
    expect(status['gated.safetensors']?.error).toMatch(/gated .*accept its license/);

    const events = (await (await t.api('/api/admin/events?types=model.metadata.*')).json()) as StudioEvent[];
    const fetched = events.filter((e) => e.type === 'model.metadata.fetched').map((e) => e.data.filename);
    expect(fetched.sort()).toEqual(['detail.safetensors', 'vae.safetensors']);
    const failed = events.filter((e) => e.type === 'model.metadata.failed');
    expect(failed.map((e) => [e.severity, e.data.filename])).toEqual([['error', 'gated.safetensors']]);

    const lora = readCatalog('loras.json').categories[0]!.models[0]!;
    expect(lora.name).toBe('Detail Tweaker v2.0 [SDXL 1.0 fp16]');
    expect(lora.base_model).toBe('SDXL 1.0');
    expect(lora.trained_words).toEqual(['detailed', 'sharp focus']);
    expect(lora.tags).toEqual(['mine', 'detail', 'tool']);
    expect(lora.modelhub_model_id).toBe('501');
    expect(lora.modelhub_updated_at).toBe('2025-04-02T11:00:00.000Z');
    expect(typeof lora.metadata_fetched_at).toBe('string');

    const vae = readCatalog('models.json').categories[0]!.models.find((m) => m.file === 'vae.safetensors')!;
    expect(vae.name).toBe('vae.safetensors');
    expect(vae.tags).toEqual(['vae', 'sdxl', 'text-to-image']);
    expect(vae.base_model).toBe('stabilityai/sdxl');
    expect(vae.repohost_updated_at).toBe('2025-05-05T05:05:05.000Z');
    const gated = readCatalog('models.json').categories[0]!.models.find((m) => m.file === 'gated.safetensors')!;
    expect(gated.base_model).toBe('Flux.1 D');

    // Metadata updates change no file set, so the catalog version stays.
    expect(readCatalog('models.json').version).toBe(1);

    const versionCall = hub.requests.find((r) => r.url === '/api/v1/model-versions/1001');
    expect(versionCall?.headers.authorization).toBe('Bearer hub-key');
    // The listing serves the updated entry too.
    const loras = (await (await t.api('/api/admin/loras')).json()) as CatalogFile;
    expect(loras.categories[0]!.models[0]!.name).toBe('Detail Tweaker v2.0 [SDXL 1.0 fp16]');
  });

  it('reports a missing model hub version as a failed fetch naming the file', async () => {
    hub.versions.delete('1001');
    await t.api('/api/admin/models/fetch-metadata', { method: 'POST' });
    const failed = await waitFor(async () => {
      const events = (await (await t.api('/api/admin/events?types=model.metadata.failed')).json()) as StudioEvent[];
      return events.find((event) => event.data.filename === 'detail.safetensors');
    }, 'the failure event');
    expect(failed.data.error).toMatch(/no model version 1001/);
    expect(readCatalog('loras.json').categories[0]!.models[0]!.name).toBe('old name');
  });
});

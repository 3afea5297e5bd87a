import { afterEach, describe, expect, it } from 'vitest';
import type { CatalogResponse } from '../../../renderer/src/api/types.js';
import { useCatalogStore } from '../../../renderer/src/stores/catalog.store.js';
import { harness, type Harness } from './harness.js';

function catalog(file: string, status: 'present' | 'not_downloaded'): CatalogResponse {
  return {
    version: 1,
    date: '2026-11-22 10:00',
    stats: { queued_count: 0, downloading_count: 0, present_count: 0, total_count: 1, global_speed: 0, models_bytes: 2048, free_bytes: 4096 },
    categories: [{ id: 'c', name: 'C', models: [{ name: file, file, dest: 'checkpoints', size_gb: 1, tags: [], source: 'repohost', hosted_repo: 'a/b', status, on_disk_bytes: 0 }] }],
  };
}

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

describe('catalog store', () => {
  it('keeps both catalogs when the answers arrive out of order', async () => {
    h = await harness({
      'GET /api/admin/models': () => new Promise((resolve) => setTimeout(() => resolve(catalog('m.safetensors', 'present')), 40)),
      'GET /api/admin/loras': () => catalog('l.safetensors', 'not_downloaded'),
      'GET /api/admin/activity-log': () => [{ time: '10:00:00', message: 'Queued m.safetensors', level: 'info' }],
    });
    const store = useCatalogStore();
    await store.refreshAll();
    expect(store.catalogs.models?.categories[0]?.models[0]?.file).toBe('m.safetensors');
    expect(store.catalogs.loras?.categories[0]?.models[0]?.file).toBe('l.safetensors');
    expect(Object.keys(store.entries).sort()).toEqual(['l.safetensors', 'm.safetensors']);
    expect(store.disk).toEqual({ used: 2048, free: 4096 });
    expect(store.activity).toHaveLength(1);
  });

  it('reports a catalog that fails to load without dropping the other', async () => {
    h = await harness({ 'GET /api/admin/loras': () => catalog('l.safetensors', 'present'), 'GET /api/admin/activity-log': () => [] });
    const store = useCatalogStore();
    await store.refreshAll();
    expect(store.errors.models).toBe('Not found');
    expect(store.catalogs.loras).not.toBeNull();
  });
});

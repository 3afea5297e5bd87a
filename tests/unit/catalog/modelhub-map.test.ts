import { describe, expect, it } from 'vitest';
import type { CatalogEntry, CatalogFile } from '../../../server/contracts/catalog.contract.js';
import { buildModelhubMap } from '../../../server/catalog/modelhub-map.js';

const hubEntry = (file: string, version: string, model: string | undefined, over: Partial<CatalogEntry> = {}): CatalogEntry => ({
  name: file,
  file,
  dest: 'checkpoints',
  size_gb: 1,
  tags: [],
  source: 'modelhub',
  modelhub_version_id: version,
  ...(model === undefined ? {} : { modelhub_model_id: model }),
  ...over,
});

const catalogOf = (...models: CatalogEntry[]): CatalogFile => ({ version: 1, date: '', categories: [{ id: 'c', name: 'C', models }] });

describe('buildModelhubMap', () => {
  const models = catalogOf(
    hubEntry('juggernaut.safetensors', '101', '10', { base_model: 'SDXL 1.0', name: 'Juggernaut XL' }),
    hubEntry('juggernaut-v2.safetensors', '102', '10'),
    hubEntry('loose.safetensors', '103', undefined),
    { name: 'repo', file: 'repo.safetensors', dest: 'vae', size_gb: 1, tags: [], source: 'repohost', hosted_repo: 'a/b' },
    hubEntry('half-promoted.safetensors', '300', '30'),
  );
  const loras = catalogOf(
    hubEntry('style.safetensors', '201', '10', { dest: 'loras' }),
    hubEntry('half-promoted.safetensors', '300', '30', { dest: 'loras' }),
  );
  const present = new Set(['juggernaut.safetensors', 'style.safetensors']);
  const map = buildModelhubMap(models, loras, (entry) => present.has(entry.file));

  it('keys every catalogued hub version with its file, status and catalog', () => {
    expect(map.by_version['101']).toEqual({
      file: 'juggernaut.safetensors',
      dest: 'checkpoints',
      name: 'Juggernaut XL',
      base_model: 'SDXL 1.0',
      status: 'present',
      modelhub_model_id: '10',
      catalog: 'models',
    });
    expect(map.by_version['102']?.status).toBe('missing');
    expect(map.by_version['102']?.base_model).toBeNull();
    expect(map.by_version['103']?.modelhub_model_id).toBeNull();
    expect(map.by_version['201']).toMatchObject({ catalog: 'loras', status: 'present', dest: 'loras' });
    expect(Object.keys(map.by_version).sort()).toEqual(['101', '102', '103', '201', '300']);
  });

  it('lists the versions of each hub model across both catalogs', () => {
    expect(map.by_model['10']?.sort()).toEqual(['101', '102', '201']);
    expect(map.by_model['30']).toEqual(['300']);
    expect(Object.keys(map.by_model).sort()).toEqual(['10', '30']);
  });

  it('prefers the LoRA catalog when a version sits in both (an interrupted promote)', () => {
    expect(map.by_version['300']?.catalog).toBe('loras');
  });
});

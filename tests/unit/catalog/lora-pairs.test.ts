import { describe, expect, it } from 'vitest';
import type { CatalogEntry, CatalogFile } from '../../../server/contracts/catalog.contract.js';
import { baseModelsMatch, compatibleLoras, stripNoiseSuffix } from '../../../server/catalog/lora-pairs.js';

const lora = (file: string, over: Partial<CatalogEntry> = {}): CatalogEntry => ({
  name: file,
  file,
  dest: 'loras',
  size_gb: 0.1,
  tags: [],
  source: 'repohost',
  hosted_repo: 'owner/repo',
  ...over,
});

const I2V = 'Wan Video 2.2 I2V-A14B';

const catalog: CatalogFile = {
  version: 1,
  date: '',
  categories: [
    {
      id: 'wan_loras',
      name: 'WAN',
      models: [
        lora('orbit_high.safetensors', { name: 'Orbit Camera High Noise', base_model: I2V, pair_id: 'orbit', pair_role: 'high' }),
        lora('speed_both.safetensors', { name: 'Speed Boost', base_model: 'wan 2.2 i2v' }),
        lora('orbit_low.safetensors', { name: 'Orbit Camera Low Noise', base_model: I2V, pair_id: 'orbit', pair_role: 'low' }),
        lora('dolly_hn.safetensors', { name: 'Dolly Zoom HN', base_model: I2V, pair_id: 'dolly', pair_role: 'high' }),
        lora('dolly_hn_dup.safetensors', { name: 'Dolly Zoom v2 HN', base_model: I2V, pair_id: 'dolly', pair_role: 'high' }),
        lora('dolly_ln.safetensors', { name: 'Dolly Zoom LN', base_model: I2V, pair_id: 'dolly', pair_role: 'low' }),
        lora('lowonly.safetensors', { name: 'Film Grain (low)', base_model: I2V, pair_id: 'grain', pair_role: 'low' }),
        lora('t2v_high.safetensors', { name: 'T2V Style High Noise', base_model: 'Wan Video 2.2 T2V-A14B', pair_id: 't2v', pair_role: 'high' }),
        lora('wan21.safetensors', { name: 'Old Wan', base_model: 'Wan Video 14B i2v 480p' }),
        lora('nobase.safetensors', { name: 'No base model' }),
      ],
    },
    { id: 'sdxl_loras', name: 'SDXL', models: [lora('sdxl.safetensors', { base_model: 'SDXL 1.0' })] },
  ],
};

describe('compatibleLoras', () => {
  it('groups matching LoRAs by pair_id in catalog order, with noise suffixes stripped from the name', () => {
    expect(compatibleLoras(catalog, I2V)).toEqual([
      { pair_id: 'orbit', name: 'Orbit Camera', high: 'orbit_high.safetensors', low: 'orbit_low.safetensors', both: null },
      { pair_id: 'speed_both.safetensors', name: 'Speed Boost', high: null, low: null, both: 'speed_both.safetensors' },
      { pair_id: 'dolly', name: 'Dolly Zoom', high: 'dolly_hn.safetensors', low: 'dolly_ln.safetensors', both: null },
      { pair_id: 'grain', name: 'Film Grain', high: null, low: 'lowonly.safetensors', both: null },
    ]);
  });

  it('matches a short family name against every variant of that family', () => {
    const files = compatibleLoras(catalog, 'wan 2.2').map((pair) => pair.pair_id);
    expect(files).toEqual(['orbit', 'speed_both.safetensors', 'dolly', 'grain', 't2v']);
    expect(compatibleLoras(catalog, 'SDXL').map((pair) => pair.both)).toEqual(['sdxl.safetensors']);
    expect(compatibleLoras(catalog, 'Flux.1 D')).toEqual([]);
  });
});

describe('baseModelsMatch', () => {
  it.each([
    ['Wan Video 2.2 I2V-A14B', 'wan 2.2', true],
    ['Wan Video 2.2 I2V-A14B', 'WAN2.2 i2v', true],
    ['Wan Video 2.2 I2V-A14B', 'Wan Video 2.2 T2V-A14B', false],
    ['Wan Video 2.2 TI2V-5B', 'wan 2.2 i2v', false],
    ['Wan Video 2.2 I2V-A14B', 'Wan 2.1', false],
    ['SD 1.5', 'SD1.5', true],
    ['SDXL 1.0', 'sdxl', true],
    ['SDXL 1.0', 'SD 1.5', false],
    ['Flux.1 D', 'flux', true],
    ['Flux.1 D', 'Flux.1 S', false],
    ['Pony', '', false],
  ])('%s ~ %s -> %s', (a, b, expected) => {
    expect(baseModelsMatch(a, b)).toBe(expected);
  });
});

describe('stripNoiseSuffix', () => {
  it.each([
    ['Orbit High Noise', 'Orbit'],
    ['orbit_high_noise', 'orbit'],
    ['Orbit - Low Noise', 'Orbit'],
    ['Orbit (HN)', 'Orbit'],
    ['Orbit LN', 'Orbit'],
    ['Orbit (low)', 'Orbit'],
    ['Highlight Boost', 'Highlight Boost'],
    ['Slow Motion', 'Slow Motion'],
    ['High Noise', 'High Noise'],
  ])('%s -> %s', (name, expected) => {
    expect(stripNoiseSuffix(name)).toBe(expected);
  });
});

import { describe, expect, it } from 'vitest';
import type { CatalogEntry } from '../../../server/contracts/catalog.contract.js';
import { mergeTags, modelhubPatch, pickFile, repohostPatch } from '../../../server/catalog/metadata-patch.js';

const entry = (over: Partial<CatalogEntry> = {}): CatalogEntry => ({
  name: 'Curated name',
  file: 'detail.safetensors',
  dest: 'loras',
  size_gb: 0.1,
  tags: ['mine'],
  source: 'modelhub',
  modelhub_version_id: '1',
  ...over,
});

describe('modelhubPatch', () => {
  it('names the entry "<Model> <Version> [<BaseModel> <FP>]" from the file matching the catalog', () => {
    const patch = modelhubPatch(
      entry(),
      {
        id: '1',
        modelId: '9',
        name: 'v1.5',
        baseModel: 'Pony',
        trainedWords: ['tw'],
        model: { name: 'Detailer' },
        files: [
          { name: 'x.safetensors', primary: true, metadata: { fp: 'fp32' } },
          { name: 'detail.safetensors', metadata: { fp: 'fp16' } },
        ],
      },
      { id: '9', name: 'Detailer', tags: ['Concept', 'mine', 'style:anime'] },
      '2026-01-01T00:00:00.000+01:00',
    );
    expect(patch).toMatchObject({
      name: 'Detailer v1.5 [Pony fp16]',
      base_model: 'Pony',
      trained_words: ['tw'],
      modelhub_model_id: '9',
      tags: ['mine', 'concept'],
      metadata_fetched_at: '2026-01-01T00:00:00.000+01:00',
    });
  });

  it('keeps the name when the hub does not say the model name, and drops an empty bracket', () => {
    expect(modelhubPatch(entry(), { id: '1', name: 'v1', files: [] }, null, 'now').name).toBeUndefined();
    expect(modelhubPatch(entry(), { id: '1', name: 'v1', model: { name: 'M' } }, null, 'now').name).toBe('M v1');
  });
});

describe('repohostPatch', () => {
  it('keeps a curated base model and name, fills a missing base model, records gating and timestamps', () => {
    const repo = { id: 'o/r', gated: 'manual', lastModified: 'L', createdAt: 'C', sha: 'S', pipeline_tag: 'text-generation', cardData: { base_model: ['Qwen/Qwen2.5-7B'], tags: ['GGUF'], license: 'apache-2.0' } };
    const curated = repohostPatch(entry({ base_model: 'Qwen2.5', source: 'repohost', hosted_repo: 'o/r' }), repo, 'now');
    expect(curated.base_model).toBeUndefined();
    expect(curated.name).toBeUndefined();
    expect(curated).toMatchObject({ gated: true, repohost_updated_at: 'L', repohost_created_at: 'C', repohost_revision: 'S', license: 'apache-2.0', tags: ['mine', 'gguf', 'text-generation'] });
    expect(repohostPatch(entry({ source: 'repohost', hosted_repo: 'o/r' }), repo, 'now').base_model).toBe('Qwen/Qwen2.5-7B');
    expect(repohostPatch(entry(), { id: 'o/r', gated: false }, 'now').gated).toBe(false);
  });
});

describe('mergeTags and pickFile', () => {
  it('merges without duplicates or key:value tags and stays bounded', () => {
    expect(mergeTags(['A'], ['a', ' b ', 'license:mit', '', 'c'])).toEqual(['A', 'b', 'c']);
    expect(mergeTags([], Array.from({ length: 50 }, (_, i) => `t${i}`))).toHaveLength(24);
  });

  it('prefers the file of the catalog, then the primary one, then the first', () => {
    const files = [{ name: 'a' }, { name: 'b', primary: true }, { name: 'c' }];
    expect(pickFile(files, 'c')?.name).toBe('c');
    expect(pickFile(files, 'z')?.name).toBe('b');
    expect(pickFile([{ name: 'a' }], 'z')?.name).toBe('a');
    expect(pickFile([], 'z')).toBeUndefined();
  });
});

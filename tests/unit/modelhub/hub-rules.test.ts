import { describe, expect, it } from 'vitest';
import { loraCategoryFor, placementFor } from '../../../server/modelhub/catalog-rules.js';
import { parseRetryAfter } from '../../../server/process/backoff.js';
import { cleanPrompt, embeddingTags, networkTags } from '../../../server/modelhub/prompt-tags.js';

describe('prompt tags', () => {
  it('strips every extra-network tag and tidies what is left', () => {
    expect(cleanPrompt('masterpiece, <lora:add_detail:0.6>, 1girl,  <lyco:foo:1:0.5> , smile')).toBe('masterpiece, 1girl, smile');
    expect(cleanPrompt('<lora:x:0.5>, a cat')).toBe('a cat');
    expect(cleanPrompt('a,b <hypernet:h:1>')).toBe('a,b');
    expect(cleanPrompt('cat, <lora:x>\n<lora:y:te=0.3>, dog,')).toBe('cat,\ndog');
    expect(cleanPrompt('(red:1.2) [blue] BREAK green')).toBe('(red:1.2) [blue] BREAK green');
    expect(cleanPrompt('')).toBe('');
  });

  it('reads names and weights of LoRA-style tags and embeddings', () => {
    expect(networkTags('<lora:a:0.6> <LyCO:b:1:0.5> <lora:c> <lora:d:te=0.3:unet=1>')).toEqual([
      { kind: 'lora', name: 'a', weight: 0.6 },
      { kind: 'lyco', name: 'b', weight: 1 },
      { kind: 'lora', name: 'c', weight: 1 },
      { kind: 'lora', name: 'd', weight: 0.3 },
    ]);
    expect(embeddingTags('embedding:EasyNegative, (embedding:bad_hands:1.2)')).toEqual([
      { kind: 'embedding', name: 'EasyNegative', weight: 1 },
      { kind: 'embedding', name: 'bad_hands', weight: 1.2 },
    ]);
  });
});

describe('catalog rules', () => {
  it('places hub types per the type table, with video and Flux checkpoints as diffusion models', () => {
    expect(placementFor('Checkpoint', 'SDXL 1.0')).toEqual({ category: 'checkpoints', dest: 'checkpoints' });
    for (const base of ['Flux.1 D', 'Wan Video 14B t2v', 'Hunyuan Video', 'CogVideoX', 'LTXV']) {
      expect(placementFor('Checkpoint', base)).toEqual({ category: 'diffusion_models', dest: 'diffusion_models' });
    }
    expect(placementFor('LORA', 'Flux.1 D')).toEqual({ category: 'loras', dest: 'loras' });
    expect(placementFor('Upscaler', null)).toEqual({ category: 'upscalers', dest: 'upscale_models' });
    expect(placementFor('Hunyuan 1', null)).toBeNull();
    expect(placementFor('Checkpoint', 'Hunyuan 1')).toEqual({ category: 'checkpoints', dest: 'checkpoints' });
  });

  it('picks the LoRA category by base model', () => {
    expect(['Wan Video 2.2 I2V-A14B', 'Flux.1 S', 'SDXL 1.0', 'Pony', 'Illustrious', 'SD 1.5', 'SD 3.5', undefined].map(loraCategoryFor)).toEqual([
      'wan_loras',
      'flux_loras',
      'sdxl_loras',
      'sdxl_loras',
      'sdxl_loras',
      'sd15_loras',
      'other_loras',
      'other_loras',
    ]);
  });
});

describe('Retry-After', () => {
  it('reads seconds and HTTP dates, and ignores nonsense', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter('1.5')).toBe(1500);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(parseRetryAfter('soon')).toBeNull();
    expect(parseRetryAfter(null)).toBeNull();
  });
});

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { ManifestInput } from '../../../renderer/src/api/types.js';
import { applyResolvedSeeds, clampNote, clampNumber, formFromParams, initialForm, missingInputs, numberBounds, randomSeedsOf, rememberRandomSeeds, toParams } from '../../../renderer/src/lib/run-form.js';
import { APP_ROOT } from '../../../server/config.js';
import { parseManifest } from '../../../server/contracts/workflows.contract.js';

function manifestInputs(id: string): ManifestInput[] {
  const raw: unknown = parse(fs.readFileSync(path.join(APP_ROOT, 'workflows', id, 'manifest.yaml'), 'utf8'));
  return parseManifest(raw).inputs;
}

describe('run form from a manifest', () => {
  const inputs = manifestInputs('image-filter');

  it('starts from the manifest defaults, with a random seed and no image', () => {
    const form = initialForm(inputs);
    expect(form.values).toMatchObject({ image: null, strength: 0.3, blur_radius: 3 });
    expect(form.seeds.seed).toEqual({ randomize: true, value: 0, resolved: null });
    expect(missingInputs(inputs, form)).toEqual(['Image']);
  });

  it('sends -1 for a randomized seed and the fixed one otherwise', () => {
    const form = initialForm(inputs);
    form.values.image = 'cat_1.png';
    expect(toParams(inputs, form)).toEqual({ image: 'cat_1.png', seed: -1, strength: 0.3, blur_radius: 3 });
    form.seeds.seed!.randomize = false;
    form.seeds.seed!.value = 42;
    expect(toParams(inputs, form).seed).toBe(42);
    expect(missingInputs(inputs, form)).toEqual([]);
  });

  it('keeps numbers within min/max and rounds ints', () => {
    const blur = inputs.find((i) => i.id === 'blur_radius')!;
    expect(numberBounds(blur)).toEqual({ min: 1, max: 31, step: 1 });
    expect(clampNumber(blur, 99)).toBe(31);
    expect(clampNumber(blur, 0)).toBe(1);
    expect(clampNumber(blur, 4.6)).toBe(5);
    const form = initialForm(inputs);
    form.values.blur_radius = 500;
    form.values.strength = -3;
    expect(toParams(inputs, form)).toMatchObject({ blur_radius: 31, strength: 0 });
  });

  it('shows the resolved seed after a run and keeps randomizing unless told otherwise', () => {
    const form = initialForm(inputs);
    applyResolvedSeeds(form, { seed: 123456 });
    expect(form.seeds.seed).toMatchObject({ randomize: true, resolved: 123456 });
    form.seeds.seed!.randomize = false;
    applyResolvedSeeds(form, { seed: 777 });
    expect(form.seeds.seed).toMatchObject({ value: 777, resolved: 777 });
  });

  it('refills from an earlier job with a fixed seed, fixing it', () => {
    const form = formFromParams(inputs, { image: 'a.png', strength: 0.5, blur_radius: 7, seed: 99 }, { seed: 99 });
    expect(form.values).toMatchObject({ image: 'a.png', strength: 0.5, blur_radius: 7 });
    expect(form.seeds.seed).toEqual({ randomize: false, value: 99, resolved: 99 });
  });

  it('keeps "random each run" when the job asked for a random seed (a reload must not pin it)', () => {
    expect(formFromParams(inputs, { seed: -1 }, { seed: 99 }).seeds.seed).toEqual({ randomize: true, value: 99, resolved: 99 });
    // The server stores the seed it picked; this browser remembers that the job asked for a random one.
    const store = new Map<string, string>();
    const storage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v) };
    rememberRandomSeeds('job-1', initialForm(inputs), storage);
    expect(randomSeedsOf('job-1', storage)).toEqual(['seed']);
    expect(randomSeedsOf('job-2', storage)).toEqual([]);
    expect(formFromParams(inputs, { seed: 99 }, { seed: 99 }, randomSeedsOf('job-1', storage)).seeds.seed?.randomize).toBe(true);
  });

  it('says at the field when a typed number was changed to fit', () => {
    const strength = inputs.find((i) => i.id === 'strength')!;
    const { max } = numberBounds(strength);
    expect(clampNote(strength, max + 5)).toBe(`${max + 5} is above the maximum; using ${max}.`);
    expect(clampNote(strength, -1)).toMatch(/below the minimum/);
    expect(clampNote(strength, max)).toBeNull();
  });

  it('covers text, float, bool and loras inputs of the other shipped workflows', () => {
    const lora = manifestInputs('txt2img-sdxl-lora');
    const form = initialForm(lora);
    expect(typeof form.values.positive).toBe('string');
    expect(form.values.upscale).toBe(false);
    expect(form.values.loras).toEqual([]);
    form.values.loras = [{ name: 'style.safetensors', strength: 0.8 }];
    expect(toParams(lora, form)).toMatchObject({ loras: [{ name: 'style.safetensors', strength: 0.8 }], upscale: false, seed: -1 });
  });
});

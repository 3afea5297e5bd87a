import { describe, expect, it } from 'vitest';
import { parseManifest } from '../../../server/contracts/workflows.contract.js';
import { SEED_LIMIT, cryptoRandomSeed, resolveSeeds } from '../../../server/workflows/seeds.js';

const manifest = parseManifest({
  id: 't',
  name: 'T',
  type: 'static',
  version: 1,
  date: '2026-11-22 10:00',
  inputs: [
    { id: 'seed', type: 'seed' },
    { id: 'noise_seed', type: 'seed', default: 5 },
    { id: 'steps', type: 'int', default: 20 },
  ],
});

describe('resolveSeeds', () => {
  it('replaces -1 and missing seeds with random ones and reports every seed', () => {
    const draws = [111, 222];
    const { params, seeds } = resolveSeeds(manifest, { seed: -1, steps: 9, other: 'x' }, () => draws.shift()!);
    expect(seeds).toEqual({ seed: 111, noise_seed: 5 });
    expect(params).toEqual({ seed: 111, noise_seed: 5, steps: 9, other: 'x' });
    expect(resolveSeeds(manifest, {}, () => 7).seeds).toEqual({ seed: 7, noise_seed: 5 });
    expect(resolveSeeds(manifest, { noise_seed: '-1' }, () => 8).seeds).toEqual({ seed: 8, noise_seed: 8 });
  });

  it('keeps explicit seeds, including 0 and big safe integers', () => {
    const { seeds } = resolveSeeds(manifest, { seed: 0, noise_seed: 2 ** 52 }, () => 1);
    expect(seeds).toEqual({ seed: 0, noise_seed: 2 ** 52 });
  });

  it('rejects seeds that are not integers >= -1', () => {
    expect(() => resolveSeeds(manifest, { seed: 1.5 })).toThrow('expected an integer');
    expect(() => resolveSeeds(manifest, { seed: -7 })).toThrow('below the minimum');
  });

  it('draws crypto seeds as integers in [0, 2^50)', () => {
    const draws = Array.from({ length: 500 }, () => cryptoRandomSeed());
    for (const seed of draws) {
      expect(Number.isSafeInteger(seed)).toBe(true);
      expect(seed).toBeGreaterThanOrEqual(0);
      expect(seed).toBeLessThan(SEED_LIMIT);
    }
    expect(new Set(draws).size).toBe(draws.length);
    // With 500 uniform draws, one above 2^49 is all but certain; none would mean the range is cut.
    expect(draws.some((seed) => seed >= 2 ** 49)).toBe(true);
  });
});

/**
 * Seed resolution: every `seed` input left at `-1` (or missing; its default is `-1`) gets a
 * random seed before the graph is built, and the resolved values are returned so the job
 * record and a retry can reproduce the run.
 */
import { randomBytes } from 'node:crypto';
import type { WorkflowManifest } from '../contracts/workflows.contract.js';
import { coerceParam, type WorkflowParams } from './params.js';

/** Seeds are drawn below 2^50, like the engine's own frontend, so they stay exact in JS. */
export const SEED_LIMIT = 2 ** 50;

/** A uniformly random integer in [0, 2^50) from the OS's CSPRNG. */
export function cryptoRandomSeed(): number {
  const bytes = randomBytes(7);
  // 2 bits of the first byte and 48 of the rest: 50 bits, built up exactly (all below 2^53).
  let value = bytes[0]! & 0x03;
  for (const byte of bytes.subarray(1)) value = value * 256 + byte;
  return value;
}

/** Replace every `-1` seed with `random()`; returns the new params and `{seed input id: seed}`. */
export function resolveSeeds(
  manifest: WorkflowManifest,
  params: WorkflowParams,
  random: () => number = cryptoRandomSeed,
): { params: WorkflowParams; seeds: Record<string, number> } {
  const resolved: WorkflowParams = { ...params };
  const seeds: Record<string, number> = {};
  for (const input of manifest.inputs) {
    if (input.type !== 'seed') continue;
    const raw = params[input.id];
    const given = raw === undefined || raw === null || raw === '' ? input.default : coerceParam(input, raw);
    const seed = given === -1 ? random() : (given as number);
    resolved[input.id] = seed;
    seeds[input.id] = seed;
  }
  return { params: resolved, seeds };
}

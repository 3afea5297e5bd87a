/**
 * The run form's model, built from a workflow manifest: initial values per input, the
 * parameters sent to `execute`, and seed handling (`-1` = a fresh random seed each run).
 */
import type { ManifestInput } from '../api/types.js';
import { fillText } from './placeholders.js';

export interface LoraValue {
  name: string;
  strength: number;
}

export type FieldValue = string | number | boolean | LoraValue[] | null;

export interface SeedState {
  /** Whether each run picks a fresh seed. */
  randomize: boolean;
  /** The fixed seed when not randomizing. */
  value: number;
  /** The seed the last run actually used (from the execute answer). */
  resolved: number | null;
}

export interface FormState {
  values: Record<string, FieldValue>;
  seeds: Record<string, SeedState>;
  /** Per text input: the answer chosen for each of its placeholder questions, in order (first option when unset). */
  answers?: Record<string, string[]>;
}

/** A numeric input's bounds and step for the slider and number box. */
export function numberBounds(input: ManifestInput): { min: number; max: number; step: number } {
  if (input.type !== 'int' && input.type !== 'float') return { min: 0, max: 0, step: 1 };
  const isInt = input.type === 'int';
  const min = input.min ?? 0;
  const max = input.max ?? Math.max(min + (isInt ? 100 : 1), typeof input.default === 'number' ? input.default * 2 : 0);
  return { min, max, step: input.step ?? (isInt ? 1 : 0.01) };
}

/** The form's starting state from the manifest defaults. */
export function initialForm(inputs: readonly ManifestInput[]): FormState {
  const values: Record<string, FieldValue> = {};
  const seeds: Record<string, SeedState> = {};
  for (const input of inputs) {
    switch (input.type) {
      case 'seed': {
        const fixed = input.default ?? -1;
        seeds[input.id] = { randomize: fixed === -1, value: fixed === -1 ? 0 : fixed, resolved: null };
        values[input.id] = fixed;
        break;
      }
      case 'int':
      case 'float':
        values[input.id] = input.default ?? numberBounds(input).min;
        break;
      case 'text':
        values[input.id] = input.default ?? '';
        break;
      case 'bool':
        values[input.id] = input.default ?? false;
        break;
      case 'select':
        values[input.id] = input.default ?? input.options[0] ?? '';
        break;
      case 'loras':
        values[input.id] = input.default.map((l) => ({ name: l.name, strength: l.strength }));
        break;
      case 'image':
        values[input.id] = null;
        break;
    }
  }
  return { values, seeds };
}

/** Why a typed number was changed to fit (null when it was kept as typed). */
export function clampNote(input: ManifestInput, raw: number): string | null {
  if (!Number.isFinite(raw)) return null;
  const { min, max } = numberBounds(input);
  if (raw < min) return `${raw} is below the minimum; using ${min}.`;
  if (raw > max) return `${raw} is above the maximum; using ${max}.`;
  if (input.type === 'int' && !Number.isInteger(raw)) return `Whole numbers only; using ${Math.round(raw)}.`;
  return null;
}

/** Keep a number inside an input's bounds, rounded for `int`. */
export function clampNumber(input: ManifestInput, raw: number): number {
  const { min, max } = numberBounds(input);
  let value = Number.isFinite(raw) ? raw : min;
  if (input.type === 'int' || input.type === 'seed') value = Math.round(value);
  if (input.type === 'seed') return Math.max(-1, value);
  return Math.min(max, Math.max(min, value));
}

/** What is missing before the form can run (an image input without an image). */
export function missingInputs(inputs: readonly ManifestInput[], state: FormState): string[] {
  return inputs.filter((input) => input.type === 'image' && !state.values[input.id]).map((input) => input.label ?? input.id);
}

/**
 * The `params` JSON for `execute`: input id → value; randomized seeds travel as `-1`; a text's
 * placeholder questions are replaced by the chosen answers (the engine never sees `[[…]]`).
 */
export function toParams(inputs: readonly ManifestInput[], state: FormState): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const input of inputs) {
    if (input.type === 'seed') {
      const seed = state.seeds[input.id];
      params[input.id] = !seed || seed.randomize ? -1 : Math.max(0, Math.round(seed.value));
      continue;
    }
    const value = state.values[input.id];
    if (value === null || value === undefined) continue;
    if (input.type === 'int' || input.type === 'float') params[input.id] = clampNumber(input, Number(value));
    else if (input.type === 'text' && typeof value === 'string') params[input.id] = fillText(value, state.answers?.[input.id]);
    else params[input.id] = value;
  }
  return params;
}

/** After a run: remember the seeds the server resolved, so the form can show and reuse them. */
export function applyResolvedSeeds(state: FormState, seeds: Record<string, number>): void {
  for (const [id, seed] of Object.entries(seeds)) {
    const entry = state.seeds[id];
    if (!entry) continue;
    entry.resolved = seed;
    if (!entry.randomize) entry.value = seed;
  }
}

/** Refill a form from an earlier job's parameters (a retry or "run again"). */
export function formFromParams(
  inputs: readonly ManifestInput[],
  params: Record<string, unknown>,
  seeds: Record<string, number> = {},
  /** Seed inputs the job asked to randomize (the record keeps only the seed it got). */
  randomIds: readonly string[] = [],
): FormState {
  const state = initialForm(inputs);
  for (const input of inputs) {
    const raw = params[input.id];
    if (input.type === 'seed') {
      const seed = seeds[input.id] ?? (typeof raw === 'number' ? raw : undefined);
      const entry = state.seeds[input.id];
      if (!entry || seed === undefined || seed < 0) continue;
      entry.resolved = seed;
      entry.value = seed;
      // A job that asked for a random seed keeps "random each run": reloading or retrying it
      // must not quietly pin the seed it happened to get.
      entry.randomize = raw === -1 || randomIds.includes(input.id);
      continue;
    }
    if (raw === undefined) continue;
    if (input.type === 'int' || input.type === 'float') {
      if (typeof raw === 'number') state.values[input.id] = clampNumber(input, raw);
    } else if (input.type === 'loras') {
      if (Array.isArray(raw)) state.values[input.id] = raw as LoraValue[];
    } else if (typeof raw === 'string' || typeof raw === 'boolean') {
      state.values[input.id] = raw;
    }
  }
  return state;
}

/** The form as a finished job ran it: its parameters, seeds (random ones stay random) and input image. */
export function formFromJob(inputs: readonly ManifestInput[], record: { prompt_id: string; params: Record<string, unknown>; seeds: Record<string, number>; input_image: string | null }): FormState {
  const filled = formFromParams(inputs, record.params, record.seeds, randomSeedsOf(record.prompt_id));
  const image = inputs.find((i) => i.type === 'image');
  if (image && record.input_image && !filled.values[image.id]) filled.values[image.id] = record.input_image;
  return filled;
}

const RANDOM_KEY = 'studio.random-seeds';
const RANDOM_KEEP = 100;

/** The seed inputs a job started from this browser asked to randomize (empty when unknown). */
export function randomSeedsOf(promptId: string, storage: Pick<Storage, 'getItem'> | null = globalThis.localStorage ?? null): string[] {
  try {
    const all = JSON.parse(storage?.getItem(RANDOM_KEY) ?? '{}') as Record<string, string[]>;
    return Array.isArray(all[promptId]) ? all[promptId] : [];
  } catch {
    return [];
  }
}

/** Remember which seeds a job asked to randomize, so a reload keeps "random each run" (last 100 jobs). */
export function rememberRandomSeeds(promptId: string, state: FormState, storage: Pick<Storage, 'getItem' | 'setItem'> | null = globalThis.localStorage ?? null): void {
  const ids = Object.entries(state.seeds).filter(([, s]) => s.randomize).map(([id]) => id);
  if (!ids.length || !storage) return;
  try {
    const all = JSON.parse(storage.getItem(RANDOM_KEY) ?? '{}') as Record<string, string[]>;
    all[promptId] = ids;
    const keys = Object.keys(all);
    for (const key of keys.slice(0, Math.max(0, keys.length - RANDOM_KEEP))) delete all[key];
    storage.setItem(RANDOM_KEY, JSON.stringify(all));
  } catch {
    // Storage full or blocked: the form falls back to the seed the job used.
  }
}

/** The same parameters with every seed input drawn anew by the server (`-1`): "Run ×N" makes N different results. */
export function withNewSeeds(inputs: readonly ManifestInput[], params: Record<string, unknown>): Record<string, unknown> {
  const copy = { ...params };
  for (const input of inputs) if (input.type === 'seed') copy[input.id] = -1;
  return copy;
}

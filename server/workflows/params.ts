/**
 * Form parameters → typed values per manifest input. Everything that lands in a graph goes
 * through here, so the engine never sees `"false"` for a boolean (it would read it as true),
 * a string for an INT, or a path that climbs out of its folder.
 */
import { type LoraItem, loraItemSchema, type ManifestInput, type WorkflowManifest } from '../contracts/workflows.contract.js';
import { paramError } from './workflow-errors.js';

/** The form's parameters: input id → raw value (JSON from the client, or a preset). */
export type WorkflowParams = Record<string, unknown>;

/** A parameter after coercion to its input's type. */
export type ParamValue = string | number | boolean | LoraItem[];

/** The runner's special key naming an already uploaded engine input file (the spec's runner rules). */
export const EXISTING_INPUT_IMAGE_KEY = '_existing_input_image';

const INT_TEXT = /^-?\d+$/;
const FLOAT_TEXT = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** Coerce one raw value to the input's type, or throw a 400 naming the input. */
export function coerceParam(input: ManifestInput, raw: unknown): ParamValue {
  const bad = (why: string) => paramError(`parameter "${input.id}": ${why}`);
  switch (input.type) {
    case 'text':
      if (typeof raw === 'string') return raw;
      if (typeof raw === 'number' || typeof raw === 'boolean') return String(raw);
      throw bad('expected text');
    case 'image':
      if (typeof raw !== 'string' || raw.trim() === '') throw bad('expected an engine input file name');
      if (!isSafeRelativeName(raw)) throw bad('file name must stay inside the input folder');
      return raw;
    case 'int':
    case 'seed': {
      const value = toNumber(raw, INT_TEXT);
      if (value === undefined || !Number.isSafeInteger(value)) throw bad('expected an integer');
      const min = input.type === 'seed' ? -1 : input.min;
      const max = input.type === 'seed' ? Number.MAX_SAFE_INTEGER : input.max;
      checkRange(value, min, max, bad);
      return value;
    }
    case 'float': {
      const value = toNumber(raw, FLOAT_TEXT);
      if (value === undefined || !Number.isFinite(value)) throw bad('expected a number');
      checkRange(value, input.min, input.max, bad);
      return value;
    }
    case 'bool':
      if (typeof raw === 'boolean') return raw;
      if (raw === 'true' || raw === 1) return true;
      if (raw === 'false' || raw === 0) return false;
      throw bad('expected true or false');
    case 'select':
      if (typeof raw === 'string' && input.options.includes(raw)) return raw;
      throw bad(`expected one of ${input.options.join(', ')}`);
    case 'loras':
      return coerceLoras(input, raw, bad);
  }
}

/** The value of an input: the coerced parameter, else the manifest default, else a 400. */
export function resolveInputValue(input: ManifestInput, params: WorkflowParams): ParamValue {
  const raw = params[input.id];
  const missing = raw === undefined || raw === null || (raw === '' && input.type !== 'text');
  if (!missing) return coerceParam(input, raw);
  if (input.default !== undefined) return coerceParam(input, input.default);
  throw paramError(`missing parameter "${input.id}"`);
}

/**
 * Put the run's input image into the first `image` input: an uploaded file's engine name wins,
 * then `_existing_input_image`, then whatever the params already carry for that input.
 */
export function applyInputImage(manifest: WorkflowManifest, params: WorkflowParams, uploadedName?: string): WorkflowParams {
  const imageInput = manifest.inputs.find((input) => input.type === 'image');
  const existing = params[EXISTING_INPUT_IMAGE_KEY];
  const chosen = uploadedName ?? (typeof existing === 'string' && existing !== '' ? existing : undefined);
  if (!imageInput || chosen === undefined) return { ...params };
  return { ...params, [imageInput.id]: chosen };
}

/** A relative name with no `..` segment, no leading slash and no drive letter. */
export function isSafeRelativeName(name: string): boolean {
  if (/^[\\/]/.test(name) || /^[A-Za-z]:/.test(name)) return false;
  return !name.split(/[\\/]/).some((segment) => segment === '..');
}

function coerceLoras(input: Extract<ManifestInput, { type: 'loras' }>, raw: unknown, bad: (why: string) => Error): LoraItem[] {
  if (!Array.isArray(raw)) throw bad('expected a list of {name, strength}');
  if (input.max !== undefined && raw.length > input.max) throw bad(`at most ${input.max} LoRAs`);
  return raw.map((item: unknown, index) => {
    const parsed = loraItemSchema.safeParse(typeof item === 'string' ? { name: item } : item);
    if (!parsed.success) throw bad(`item ${index}: expected {name, strength} with strength in -100..100`);
    if (!isSafeRelativeName(parsed.data.name)) throw bad(`item ${index}: file name must stay inside the loras folder`);
    return parsed.data;
  });
}

function toNumber(raw: unknown, textPattern: RegExp): number | undefined {
  if (typeof raw === 'number') return raw;
  if (typeof raw === 'string' && textPattern.test(raw.trim())) return Number(raw.trim());
  return undefined;
}

function checkRange(value: number, min: number | undefined, max: number | undefined, bad: (why: string) => Error): void {
  if (min !== undefined && value < min) throw bad(`${value} is below the minimum ${min}`);
  if (max !== undefined && value > max) throw bad(`${value} is above the maximum ${max}`);
}

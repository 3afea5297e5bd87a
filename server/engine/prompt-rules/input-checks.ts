/**
 * The engine's per-input checks on literal values and links: link type compatibility, the
 * `int()` / `float()` / `str()` / `bool()` coercion, min / max, and combo membership.
 */
import { comboChoices, type InputDef, type PromptError } from './node-inputs.js';
import { pyRepr, pyStr, pyTruthy, pyTypeName } from './py-format.js';

/**
 * With a recorded `--object-info` dump the model lists are the recording engine's, not this disk's:
 * model-file combos are then not checked. The built-in set lists real folders and checks them all.
 */
const MODEL_LIST_INPUTS = new Set(['ckpt_name', 'lora_name', 'vae_name', 'unet_name', 'clip_name', 'model_name']);
const FILE_LIKE = /\.[A-Za-z0-9]{1,12}$/;

/** `validate_node_input`: equal types, `*` on either side, or overlapping comma-separated unions. */
export function typesMatch(received: unknown, expected: unknown): boolean {
  if (received === expected) return true;
  if (Array.isArray(received) && Array.isArray(expected)) return JSON.stringify(received) === JSON.stringify(expected);
  if (typeof received !== 'string' || typeof expected !== 'string') return false;
  const got = new Set(received.split(',').map((t) => t.trim()));
  const want = new Set(expected.split(',').map((t) => t.trim()));
  if (got.has('*') || want.has('*')) return true;
  return [...got].some((t) => want.has(t));
}

export type Coerced = { ok: true; value: unknown } | { ok: false; shown: unknown; error: string };

/** The engine's `int()` / `float()` / `str()` / `bool()` coercion of literal values. */
export function coerce(def: InputDef, raw: unknown): Coerced {
  // A literal list travels wrapped as {"__value__": [...]}; the engine unwraps it first.
  const value = isValueWrapper(raw) ? raw.__value__ : raw;
  switch (def.type) {
    case 'INT':
      return toInt(value);
    case 'FLOAT':
      return toFloat(value);
    case 'STRING':
      return { ok: true, value: pyStr(value) };
    case 'BOOLEAN':
      return { ok: true, value: pyTruthy(value) };
    default:
      return { ok: true, value };
  }
}

function toInt(value: unknown): Coerced {
  if (typeof value === 'boolean') return { ok: true, value: value ? 1 : 0 };
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return { ok: false, shown: value, error: 'cannot convert float NaN to integer' };
    if (!Number.isFinite(value)) return { ok: false, shown: value, error: 'cannot convert float infinity to integer' };
    return { ok: true, value: Math.trunc(value) };
  }
  if (typeof value === 'string') {
    const text = value.trim().replace(/(\d)_(?=\d)/g, '$1');
    if (/^[+-]?\d+$/.test(text)) return { ok: true, value: Number(text) };
    return { ok: false, shown: value, error: `invalid literal for int() with base 10: ${pyRepr(value)}` };
  }
  return { ok: false, shown: value, error: `int() argument must be a string, a bytes-like object or a real number, not '${pyTypeName(value)}'` };
}

function toFloat(value: unknown): Coerced {
  if (typeof value === 'boolean') return { ok: true, value: value ? 1 : 0 };
  if (typeof value === 'number') return { ok: true, value };
  if (typeof value === 'string') {
    const text = value.trim().toLowerCase();
    if (/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(text)) return { ok: true, value: Number(text) };
    const special = /^([+-]?)(inf|infinity|nan)$/.exec(text);
    if (special) return { ok: true, value: special[2] === 'nan' ? NaN : special[1] === '-' ? -Infinity : Infinity };
    return { ok: false, shown: value, error: `could not convert string to float: ${pyRepr(value)}` };
  }
  return { ok: false, shown: value, error: `float() argument must be a string or a real number, not '${pyTypeName(value)}'` };
}

/** min / max for numbers, membership for combos (recorded model-file lists and empty lists are skipped). */
export function checkValue(def: InputDef, value: unknown, config: unknown[], liveLists: boolean): PromptError | null {
  const { min, max } = def.options;
  if (typeof value === 'number' && typeof min === 'number' && value < min) {
    return {
      type: 'value_smaller_than_min',
      message: `Value ${pyRepr(value)} smaller than min of ${pyRepr(min)}`,
      details: def.name,
      extra_info: { input_name: def.name, input_config: config, received_value: value },
    };
  }
  if (typeof value === 'number' && typeof max === 'number' && value > max) {
    return {
      type: 'value_bigger_than_max',
      message: `Value ${pyRepr(value)} bigger than max of ${pyRepr(max)}`,
      details: def.name,
      extra_info: { input_name: def.name, input_config: config, received_value: value },
    };
  }
  const choices = comboChoices(def);
  if (!choices) return null;
  if (!liveLists && (choices.length === 0 || isModelList(def.name, choices))) return null;
  if (choices.some((c) => c === value)) return null;
  const long = choices.length > 20;
  return {
    type: 'value_not_in_list',
    message: 'Value not in list',
    details: `${def.name}: '${pyStr(value)}' not in ${long ? `(list of length ${choices.length})` : pyRepr(choices)}`,
    extra_info: { input_name: def.name, input_config: long ? null : config, received_value: value },
  };
}

function isModelList(name: string, choices: unknown[]): boolean {
  if (MODEL_LIST_INPUTS.has(name)) return true;
  // `sampler_name` also ends in _name but lists algorithms, not files: keep checking those.
  return name.endsWith('_name') && choices.some((c) => typeof c === 'string' && FILE_LIKE.test(c));
}

function isValueWrapper(value: unknown): value is { __value__: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, '__value__');
}

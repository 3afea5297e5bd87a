/**
 * The shapes the engine's prompt rules read: an API-format graph, a node definition of
 * `object_info` and its declared inputs, and the engine's error object.
 */

export type { ApiGraph, ApiNode } from '../engine-graph.js';

/** A node definition from object_info (only the fields the rules read are typed). */
export interface NodeInfo {
  input?: {
    required?: Record<string, unknown>;
    optional?: Record<string, unknown>;
    hidden?: Record<string, unknown>;
  };
  input_order?: { required?: string[]; optional?: string[]; hidden?: string[] };
  output?: unknown[];
  output_node?: boolean;
  python_module?: string;
  [key: string]: unknown;
}

export interface PromptError {
  type: string;
  message: string;
  details: string;
  extra_info: Record<string, unknown>;
}

/** One declared input of a node, in the engine's authoritative order. */
export interface InputDef {
  name: string;
  category: 'required' | 'optional';
  /** `"INT"`, `"IMAGE"`, `"COMBO"`, or a V1 combo's list of choices. */
  type: unknown;
  options: Record<string, unknown>;
}

/** Declared inputs (required, then optional) in `input_order`, falling back to key order for old dumps. */
export function inputDefs(info: NodeInfo): InputDef[] {
  const defs: InputDef[] = [];
  for (const category of ['required', 'optional'] as const) {
    const specs = info.input?.[category] ?? {};
    const order = info.input_order?.[category] ?? Object.keys(specs);
    for (const name of order) {
      const spec = specs[name];
      if (spec === undefined) continue;
      const [type, options] = Array.isArray(spec) ? spec : [spec, undefined];
      defs.push({ name, category, type, options: isRecord(options) ? options : {} });
    }
  }
  return defs;
}

/** The choices of a combo input (V1 list or V3 `"COMBO"`), or null when the input is not a combo. */
export function comboChoices(def: InputDef): unknown[] | null {
  if (Array.isArray(def.type)) return def.type;
  if (def.type === 'COMBO') return Array.isArray(def.options.options) ? def.options.options : [];
  return null;
}

/** A plain JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

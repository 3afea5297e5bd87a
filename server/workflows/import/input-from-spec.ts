/**
 * One form input for one widget of one node: its type, default (the workflow's own value),
 * label and min/max/step/options taken from the node's `object_info` spec.
 */
import type { ManifestInput } from '../../contracts/workflows.contract.js';
import { type ApiGraph, type InputOptions, type InputSpec, isLink, type NodeInfo, type ObjectInfo } from '../../engine/engine-graph.js';
import { orderedInputs, isWidgetInput } from '../ui-node-layout.js';

export interface InputTarget {
  node: string;
  field: string;
}

/** `node/field`: a target as a key. */
export function targetKey(target: InputTarget): string {
  return `${target.node}/${target.field}`;
}

/** Node ids in the graph's order: by number, and by text where they are not numbers (`12:3`). */
export function byNodeId(a: string, b: string): number {
  return Number(a) - Number(b) || a.localeCompare(b);
}

/** The schema of `field` on a node class, when the engine knows both. */
export function specOf(info: NodeInfo | undefined, field: string): InputSpec | undefined {
  return info?.input?.required?.[field] ?? info?.input?.optional?.[field];
}

/** True when the node's field holds a literal value a form can set (not a link). */
export function isSettable(graph: ApiGraph, target: InputTarget): boolean {
  const value = graph[target.node]?.inputs[target.field];
  return value !== undefined && !isLink(value) && (typeof value !== 'object' || value === null);
}

/** The node's first widget holding a literal, in schema order (or its first literal input). */
export function firstWidget(graph: ApiGraph, objectInfo: ObjectInfo, node: string): string | undefined {
  const info = objectInfo[graph[node]?.class_type ?? ''];
  const names = info ? orderedInputs(info).filter((input) => isWidgetInput(input.spec)).map((input) => input.name) : Object.keys(graph[node]?.inputs ?? {});
  return names.find((field) => isSettable(graph, { node, field }));
}

/** Turn `noise_seed` into `Noise seed`. */
export function humanize(field: string): string {
  const words = field.replace(/_/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * The form input for a target. `id`/`label` chosen by the caller; `asSeed` makes it a seed
 * (default −1: a new seed each run). Returns null when the field cannot be set from a form.
 */
export function inputFor(
  graph: ApiGraph,
  objectInfo: ObjectInfo,
  target: InputTarget,
  id: string,
  label: string,
  options: { asSeed?: boolean; placeholder?: boolean } = {},
): ManifestInput | null {
  if (!isSettable(graph, target)) return null;
  const value = graph[target.node]!.inputs[target.field];
  const spec = specOf(objectInfo[graph[target.node]!.class_type], target.field);
  const where = options.placeholder ? {} : { node_id: Number(target.node), field: target.field };
  if (!options.placeholder && !/^\d+$/.test(target.node)) return null;
  const opts = (spec?.[1] ?? {}) as InputOptions;
  const description = typeof opts.tooltip === 'string' ? { description: opts.tooltip } : {};
  const base = { id, label, ...description, ...where };
  if (options.asSeed) return { ...base, type: 'seed', default: -1 };
  // An upload combo (LoadImage's image) is the form's image: the Run page's picker fills it.
  if (opts.image_upload === true && typeof value === 'string') return { ...base, type: 'image', default: value };
  const type = spec ? spec[0] : typeof value === 'number' ? (Number.isInteger(value) ? 'INT' : 'FLOAT') : typeof value === 'boolean' ? 'BOOLEAN' : 'STRING';
  const bounds = {
    ...(finite(opts.min) ? { min: opts.min } : {}),
    ...(finite(opts.max) ? { max: opts.max } : {}),
    ...(typeof opts.step === 'number' && opts.step > 0 ? { step: opts.step } : {}),
  };
  if (type === 'INT' && typeof value === 'number' && Number.isSafeInteger(value)) return { ...base, type: 'int', default: value, ...bounds };
  if (type === 'FLOAT' && typeof value === 'number') return { ...base, type: 'float', default: value, ...bounds };
  if (type === 'BOOLEAN' && typeof value === 'boolean') return { ...base, type: 'bool', default: value };
  const choices = Array.isArray(type) ? type : type === 'COMBO' && Array.isArray(opts.options) ? opts.options : null;
  const text = typeof value === 'string' ? value : String(value);
  if (choices && choices.length > 0 && choices.every((c) => typeof c === 'string') && choices.includes(text)) {
    return { ...base, type: 'select', options: choices as string[], default: text };
  }
  if (typeof value === 'string') return { ...base, type: 'text', default: value, ...(opts.multiline === true ? { multiline: true } : {}) };
  return null;
}

/** Bounds beyond a JS safe integer (a seed's 2^64−1) are left to the engine. */
function finite(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= Number.MAX_SAFE_INTEGER;
}

/**
 * Model files matched by content, not only by name: the engine's editor saves, for the model
 * files a workflow uses, `{name, url, hash, hash_type, directory}` (the workflow's top-level
 * `models` list and each loader node's `properties.models`, also inside subgraph definitions).
 * A file whose name no catalog knows but whose SHA-256 a catalog entry carries is that entry's
 * file under another name: the graph is rewritten to the catalog's file name, so "Download
 * missing models" fetches it and the run finds it.
 */
import type { ManifestInput } from '../../contracts/workflows.contract.js';
import type { ApiGraph } from '../../engine/engine-graph.js';
import { isObject } from './ui-graph.js';

const SHA256 = /^[0-9a-f]{64}$/i;

/** Model file name (as the graph names it, and its base name) → SHA-256, from an editor-format workflow. */
export function modelHashes(raw: unknown): Map<string, string> {
  const hashes = new Map<string, string>();
  const take = (list: unknown): void => {
    for (const item of Array.isArray(list) ? list : []) {
      if (!isObject(item) || typeof item.name !== 'string' || typeof item.hash !== 'string') continue;
      const type = typeof item.hash_type === 'string' ? item.hash_type.toLowerCase().replace(/[^a-z0-9]/g, '') : 'sha256';
      if (type !== 'sha256' || !SHA256.test(item.hash)) continue;
      hashes.set(item.name, item.hash.toLowerCase());
    }
  };
  const nodesOf = (graph: unknown): void => {
    if (!isObject(graph)) return;
    take(graph.models);
    for (const node of Array.isArray(graph.nodes) ? graph.nodes : []) if (isObject(node) && isObject(node.properties)) take(node.properties.models);
  };
  nodesOf(raw);
  if (isObject(raw) && isObject(raw.definitions)) for (const sub of Array.isArray(raw.definitions.subgraphs) ? raw.definitions.subgraphs : []) nodesOf(sub);
  return hashes;
}

/** The SHA-256 recorded for a model value (`SDXL\\base.safetensors` is found by its base name too). */
export function hashOf(hashes: ReadonlyMap<string, string>, value: string): string | undefined {
  return hashes.get(value) ?? hashes.get(baseName(value));
}

/** `sub/dir\\file.safetensors` → `file.safetensors`. */
export function baseName(value: string): string {
  return value.replace(/\\/g, '/').split('/').pop() ?? value;
}

/** Write `renamed` (old model value → catalog file name) into the graph and into the form's defaults. */
export function applyRenames(graph: ApiGraph, inputs: ManifestInput[], renamed: ReadonlyMap<string, string>): void {
  if (renamed.size === 0) return;
  for (const node of Object.values(graph)) {
    for (const [field, value] of Object.entries(node.inputs)) {
      const next = typeof value === 'string' ? renamed.get(value) : undefined;
      if (next !== undefined) node.inputs[field] = next;
    }
  }
  for (const input of inputs) {
    if (typeof input.default !== 'string') continue;
    const next = renamed.get(input.default);
    if (next === undefined) continue;
    input.default = next;
    if (input.type === 'select' && !input.options.includes(next)) input.options.push(next);
  }
}

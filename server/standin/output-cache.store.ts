/**
 * The engine's output cache. A node's key is its class, its inputs and, recursively, the keys of
 * the nodes it links to (plus the node id for classes taking a hidden UNIQUE_ID, and a content hash
 * of the file for loaders, like their IS_CHANGED). Equal keys in a later prompt mean "cached": the
 * node does not run again and output nodes replay their UI. Like the engine's default ("classic")
 * cache, each prompt keeps only the entries it uses itself: a node from two prompts ago runs again.
 */
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isInside } from '../http/contained-path.js';
import { annotatedPath, type EngineDirs } from '../engine/engine-paths.js';
import { takesUniqueId, type NodeCatalog } from './object-info.store.js';
import type { ApiGraph, NodeUi, NodeValue } from './standin.types.js';

export interface CachedOutput {
  outputs: NodeValue[];
  ui: NodeUi | null;
}

/** Classes whose IS_CHANGED changes every time (the engine never serves them from its cache). */
const NEVER_CACHED = new Set(['SaveImageWebsocket']);

/** Inputs whose file content decides whether the node changed (the loaders' IS_CHANGED). */
const FILE_INPUTS: Record<string, string> = { LoadImage: 'image', LoadImageMask: 'image', VHS_LoadVideo: 'video', LoadVideo: 'file' };

export class OutputCache {
  private readonly entries = new Map<string, CachedOutput>();

  get(key: string | undefined): CachedOutput | undefined {
    return key === undefined ? undefined : this.entries.get(key);
  }

  set(key: string, value: CachedOutput): void {
    this.entries.set(key, value);
  }

  /** The engine's `clean_unused()` at the start of a prompt: drop what this prompt does not use. */
  retainOnly(keys: Iterable<string>): void {
    const wanted = new Set(keys);
    for (const key of this.entries.keys()) if (!wanted.has(key)) this.entries.delete(key);
  }
}

/** The cache key of every node of the graph. */
export function cacheKeys(graph: ApiGraph, catalog: NodeCatalog, dirs: EngineDirs): Map<string, string> {
  const keys = new Map<string, string>();
  const visiting = new Set<string>();
  const keyOf = (id: string): string => {
    const known = keys.get(id);
    if (known) return known;
    // Unvalidated parts of a graph (not feeding any output) may loop; cut the loop.
    if (visiting.has(id)) return `cycle:${id}`;
    visiting.add(id);
    const node = graph[id];
    const classType = node?.class_type ?? '';
    const info = catalog.get(classType);
    const inputs = node && typeof node.inputs === 'object' && node.inputs !== null ? node.inputs : {};
    const parts: unknown[] = [classType, NEVER_CACHED.has(classType) ? randomUUID() : changeToken(classType, inputs, dirs)];
    if (info && takesUniqueId(info)) parts.push(id);
    for (const name of Object.keys(inputs).sort()) {
      const value = inputs[name];
      const isLink = Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && Object.hasOwn(graph, value[0]);
      parts.push([name, isLink ? ['ANCESTOR', keyOf(value[0] as string), value[1]] : value]);
    }
    visiting.delete(id);
    const key = createHash('sha256').update(JSON.stringify(parts)).digest('hex');
    keys.set(id, key);
    return key;
  };
  for (const id of Object.keys(graph)) keyOf(id);
  return keys;
}

function changeToken(classType: string, inputs: Record<string, unknown>, dirs: EngineDirs): string | null {
  const input = FILE_INPUTS[classType];
  const name = input ? inputs[input] : undefined;
  if (typeof name !== 'string') return null;
  const { name: rel, dir } = annotatedPath(name, dirs, 'input');
  if (!dir) return null;
  const file = path.resolve(dir, rel);
  if (!isInside(dir, file)) return null;
  try {
    return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
  } catch {
    return 'missing';
  }
}

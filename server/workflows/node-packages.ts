/**
 * The engine's nodes grouped into packages by `python_module` (spec "Node package"):
 * `custom_nodes.<package>[.sub.module]` → `<package>`; everything else is `Engine Core`.
 */
import type { ObjectInfo } from '../engine/engine-graph.js';
import type { NodePackage } from '../contracts/nodes.contract.js';

export const ENGINE_CORE = 'Engine Core';

/** The package a node's `python_module` belongs to. */
export function packageOfModule(pythonModule: string | undefined): string {
  // `custom_nodes.<package>`, also with a `@<version>` (engines that load versioned packs) or a
  // `.sub.module` suffix; `comfy_extras.*`, `comfy_api_nodes.*` and the rest are the engine's own.
  const match = /^custom_nodes\.([^.@]+)/.exec(pythonModule ?? '');
  return match ? match[1]! : ENGINE_CORE;
}

/** Group `object_info` into packages; nodes sorted, packages sorted by name (case-insensitive). */
export function groupNodePackages(objectInfo: ObjectInfo): NodePackage[] {
  const groups = new Map<string, string[]>();
  for (const [className, info] of Object.entries(objectInfo)) {
    const name = packageOfModule(info.python_module);
    const nodes = groups.get(name) ?? [];
    nodes.push(className);
    groups.set(name, nodes);
  }
  return [...groups.entries()]
    .map(([name, nodes]) => ({ name, nodes: nodes.sort(), node_count: nodes.length }))
    .sort((a, b) => compareNames(a.name, b.name));
}

function compareNames(a: string, b: string): number {
  const la = a.toLowerCase();
  const lb = b.toLowerCase();
  if (la !== lb) return la < lb ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

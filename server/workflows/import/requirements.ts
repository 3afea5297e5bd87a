/**
 * What an imported graph needs before it can run, without running it: `required_nodes` — the
 * package of every node type that is not the engine's own (the engine's `python_module` for the
 * types it has, the node map for those it lacks, with the package's install URL), and
 * `required_models` — every model file a node's input names (by its extension), each looked up
 * in the catalogs by file name, then by the SHA-256 the workflow recorded for it (a match by
 * content is renamed to the catalog's file name; see `model-match.ts`).
 */
import { ENGINE_CORE, packageOfModule } from '../node-packages.js';
import type { ApiGraph, ObjectInfo } from '../../engine/engine-graph.js';
import { baseName, hashOf } from './model-match.js';
import { isModelFileName } from '../../media-types.js';

/** Node class → the package that provides it, and where to install it from. */
export type NodeMap = Record<string, { package: string; url: string }>;

export interface Requirements {
  required_nodes: string[];
  /** Package → install URL, for packages the engine lacks and the map knows. */
  node_sources: Record<string, string>;
  required_models: string[];
  /** Model values matched to a catalog entry by SHA-256 → that entry's file name. */
  renamed: Map<string, string>;
  warnings: string[];
}

/** The catalogs as the import sees them. */
export interface ModelCatalog {
  /** Catalog folder of a known model file name, else undefined. */
  destOf(file: string): string | undefined;
  /** The catalog file whose recorded SHA-256 is `sha256` (lowercase hex), else undefined. */
  fileBySha256(sha256: string): string | undefined;
}

/** Needs of `graph`; `hashes` are the SHA-256 sums the workflow recorded for its model files. */
export function requirementsOf(graph: ApiGraph, objectInfo: ObjectInfo, nodeMap: NodeMap, catalog: ModelCatalog, hashes: ReadonlyMap<string, string> = new Map()): Requirements {
  const packages = new Set<string>();
  const node_sources: Record<string, string> = {};
  const models = new Set<string>();
  const warnings: string[] = [];
  const unknown = new Set<string>();
  for (const node of Object.values(graph)) {
    const info = objectInfo[node.class_type];
    if (info) {
      const pkg = packageOfModule(info.python_module);
      if (pkg !== ENGINE_CORE) packages.add(pkg);
    } else {
      const mapped = nodeMap[node.class_type];
      if (mapped) {
        packages.add(mapped.package);
        node_sources[mapped.package] = mapped.url;
      } else if (!unknown.has(node.class_type)) {
        unknown.add(node.class_type);
        packages.add(node.class_type);
        warnings.push(`node type "${node.class_type}" is not in the engine and no known package provides it; install its package by hand`);
      }
    }
    for (const value of Object.values(node.inputs)) {
      if (typeof value === 'string' && isModelFileName(value) && !value.includes('{{')) models.add(value);
    }
  }
  const renamed = new Map<string, string>();
  for (const file of models) {
    if (catalog.destOf(file) !== undefined || catalog.destOf(baseName(file)) !== undefined) continue;
    const sha = hashOf(hashes, file);
    const match = sha === undefined ? undefined : catalog.fileBySha256(sha);
    if (match !== undefined) {
      renamed.set(file, match);
      warnings.push(`model "${file}" is the catalog's "${match}" (same SHA-256): the workflow now names "${match}"`);
    } else {
      warnings.push(`model "${file}" is in no catalog: Studio cannot download it; add it to the models catalog or place the file by hand`);
    }
  }
  const required = [...models].map((file) => renamed.get(file) ?? file);
  return { required_nodes: [...packages].sort(), node_sources, required_models: [...new Set(required)].sort(), renamed, warnings };
}

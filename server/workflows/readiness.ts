/**
 * Readiness of a workflow (spec "Workflow list entries"): which required model files are on
 * disk and which required node packages the engine has loaded. Pure: the caller says how to
 * find a model file and passes the engine's node packages.
 */
import type { ModelsStatus, NodesStatus, WorkflowManifest } from '../contracts/workflows.contract.js';
import type { NodePackage } from '../contracts/nodes.contract.js';
import type { WorkflowEntry } from './workflow.store.js';

export interface Readiness {
  models_status: ModelsStatus;
  nodes_status: NodesStatus;
  ready: boolean;
}

/** Which `required_models` are present, by the caller's `isPresent(file)`. */
export function modelsStatus(manifest: Pick<WorkflowManifest, 'required_models'>, isPresent: (file: string) => boolean): ModelsStatus {
  const files = [...new Set(manifest.required_models)];
  const missing = files.filter((file) => !isPresent(file));
  return { total: files.length, present: files.length - missing.length, missing };
}

/**
 * Which `required_nodes` the engine has. An entry names a package (matched case-insensitively,
 * e.g. `ComfyUI-VideoHelperSuite`) or, failing that, a node class some package provides.
 */
export function nodesStatus(manifest: Pick<WorkflowManifest, 'required_nodes'>, packages: NodePackage[]): NodesStatus {
  const names = new Set(packages.map((pkg) => pkg.name.toLowerCase()));
  const classes = new Set(packages.flatMap((pkg) => pkg.nodes));
  const required = [...new Set(manifest.required_nodes)];
  const missing = required.filter((name) => !names.has(name.toLowerCase()) && !classes.has(name));
  return { total: required.length, installed: required.length - missing.length, missing };
}

/** `models_status`, `nodes_status` and `ready` (nothing missing) for one manifest. */
export function readiness(
  manifest: Pick<WorkflowManifest, 'required_models' | 'required_nodes'>,
  isPresent: (file: string) => boolean,
  packages: NodePackage[],
): Readiness {
  const models_status = modelsStatus(manifest, isPresent);
  const nodes_status = nodesStatus(manifest, packages);
  return { models_status, nodes_status, ready: models_status.missing.length === 0 && nodes_status.missing.length === 0 };
}

/**
 * The spec's workflow list entry: the manifest plus `models_status`, `nodes_status`, `ready`.
 * A broken workflow keeps its id (and name, when the manifest parsed), carries `error` and is
 * never ready.
 */
export function workflowListEntry(
  entry: WorkflowEntry,
  isPresent: (file: string) => boolean,
  packages: NodePackage[],
): Record<string, unknown> {
  if (entry.manifest && entry.error === undefined) return { ...entry.manifest, ...readiness(entry.manifest, isPresent, packages) };
  const status = readiness(entry.manifest ?? { required_models: [], required_nodes: [] }, isPresent, packages);
  return { id: entry.id, name: entry.id, ...(entry.manifest ?? {}), ...status, ready: false, error: entry.error ?? 'invalid workflow' };
}

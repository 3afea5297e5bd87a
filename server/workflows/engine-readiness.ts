/**
 * Which installed workflows one engine of the pool can run, from that engine's `object_info`
 * alone (a remote engine's disk is not Studio's): a required model counts as there when one of its
 * loaders lists the file, a required node package when the engine has loaded it.
 */
import { listedChoices, type ObjectInfo } from '../engine/engine-graph.js';
import type { WorkflowManifest } from '../contracts/workflows.contract.js';
import { groupNodePackages } from './node-packages.js';
import { nodesStatus } from './readiness.js';

/** What `info`'s engine lacks of a manifest: `model <file>` and `node <package>` lines (empty: it can run it). */
export function lacksOn(manifest: Pick<WorkflowManifest, 'required_models' | 'required_nodes'>, info: ObjectInfo): string[] {
  const listed = listedChoices(info);
  const models = [...new Set(manifest.required_models)].filter((file) => !listed.has(file) && !listed.has(file.split('/').pop() ?? file));
  const nodes = nodesStatus(manifest, groupNodePackages(info)).missing;
  return [...models.map((m) => `model ${m}`), ...nodes.map((n) => `node ${n}`)];
}

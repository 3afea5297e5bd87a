/**
 * Model presence as an engine sees it. The engine checks a model choice against its own model
 * folders (`value_not_in_list`), and lists those files in the combo inputs of its loader nodes
 * (`CheckpointLoaderSimple.ckpt_name`, `LoraLoader.lora_name`, …). For an external engine, or a
 * pool engine on another machine, Studio's own `models/` proves nothing, so "present" means: some
 * combo list of that engine's `object_info` offers it.
 */
import type { WorkflowManifest } from '../contracts/workflows.contract.js';
import { listedChoices, type ObjectInfo } from '../engine/engine-graph.js';
import { baseName } from './import/model-match.js';
import { groupNodePackages } from './node-packages.js';
import { modelsStatus, nodesStatus } from './readiness.js';

/** Every combo choice that looks like a file name (`name.ext`), both as listed and by base name. */
function engineModelNames(objectInfo: ObjectInfo): Set<string> {
  const names = new Set<string>();
  for (const option of listedChoices(objectInfo)) {
    if (!/\.[A-Za-z0-9]{1,12}$/.test(option)) continue;
    names.add(option.replace(/\\/g, '/'));
    names.add(baseName(option));
  }
  return names;
}

/** A presence check against the engine's lists (a file named with its folder, or without it, matches too). */
export function createEngineModelPresence(objectInfo: ObjectInfo | null): (file: string) => boolean {
  if (!objectInfo) return () => false;
  const names = engineModelNames(objectInfo);
  return (file) => names.has(file.replace(/\\/g, '/')) || names.has(baseName(file));
}

/** What `info`'s engine lacks of a manifest: `model <file>` and `node <package>` lines (empty: it can run it). */
export function lacksOn(manifest: Pick<WorkflowManifest, 'required_models' | 'required_nodes'>, info: ObjectInfo): string[] {
  const models = modelsStatus(manifest, createEngineModelPresence(info)).missing;
  const nodes = nodesStatus(manifest, groupNodePackages(info)).missing;
  return [...models.map((m) => `model ${m}`), ...nodes.map((n) => `node ${n}`)];
}

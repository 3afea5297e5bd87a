/**
 * Model presence as the engine sees it. The engine checks a model choice against its own model
 * folders (`value_not_in_list`), and lists those files in the combo inputs of its loader nodes
 * (`CheckpointLoaderSimple.ckpt_name`, `LoraLoader.lora_name`, …). For an external engine Studio's
 * own `models/` proves nothing, so "present" means: some combo list of `object_info` offers it.
 */
import { listedChoices, type ObjectInfo } from '../engine/engine-graph.js';

/** Every combo choice that looks like a file name (`name.ext`), both as listed and by base name. */
function engineModelNames(objectInfo: ObjectInfo): Set<string> {
  const names = new Set<string>();
  for (const option of listedChoices(objectInfo)) {
    if (!/\.[A-Za-z0-9]{1,12}$/.test(option)) continue;
    const normal = option.replace(/\\/g, '/');
    names.add(normal);
    names.add(normal.slice(normal.lastIndexOf('/') + 1));
  }
  return names;
}

/** A presence check against the engine's lists (a file named with its folder matches too). */
export function createEngineModelPresence(objectInfo: ObjectInfo | null): (file: string) => boolean {
  if (!objectInfo) return () => false;
  const names = engineModelNames(objectInfo);
  return (file) => names.has(file.replace(/\\/g, '/'));
}

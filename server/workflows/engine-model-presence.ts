/**
 * Model presence as the engine sees it. The engine checks a model choice against its own model
 * folders (`value_not_in_list`), and lists those files in the combo inputs of its loader nodes
 * (`CheckpointLoaderSimple.ckpt_name`, `LoraLoader.lora_name`, …). For an external engine Studio's
 * own `models/` proves nothing, so "present" means: some combo list of `object_info` offers it.
 */
import type { ObjectInfo } from '../engine/engine-graph.js';

/** Every option of every combo input whose options look like file names (`name.ext`), both as listed and by base name. */
function engineModelNames(objectInfo: ObjectInfo): Set<string> {
  const names = new Set<string>();
  for (const node of Object.values(objectInfo)) {
    const sections = (node as { input?: Record<string, Record<string, unknown> | undefined> }).input ?? {};
    for (const section of Object.values(sections)) {
      for (const spec of Object.values(section ?? {})) {
        for (const option of comboOptions(spec)) {
          if (!/\.[A-Za-z0-9]{1,12}$/.test(option)) continue;
          const normal = option.replace(/\\/g, '/');
          names.add(normal);
          names.add(normal.slice(normal.lastIndexOf('/') + 1));
        }
      }
    }
  }
  return names;
}

/** The options of a combo input spec: `[[...], {...}]` (classic) or `["COMBO", {options: [...]}]` (newer). */
function comboOptions(spec: unknown): string[] {
  if (!Array.isArray(spec)) return [];
  if (Array.isArray(spec[0])) return spec[0].filter((o): o is string => typeof o === 'string');
  const options = (spec[1] as { options?: unknown } | undefined)?.options;
  return spec[0] === 'COMBO' && Array.isArray(options) ? options.filter((o): o is string => typeof o === 'string') : [];
}

/** A presence check against the engine's lists (a file named with its folder matches too). */
export function createEngineModelPresence(objectInfo: ObjectInfo | null): (file: string) => boolean {
  if (!objectInfo) return () => false;
  const names = engineModelNames(objectInfo);
  return (file) => names.has(file.replace(/\\/g, '/'));
}

/**
 * What a graph needs of an engine, read from that engine's `object_info`: every node type, and
 * every model file a loader names (a combo value that is a model file must be in the engine's
 * list). The queue routes a job only to an engine that lacks nothing; the runner refuses a job no
 * engine can run, naming what each one lacks. Input files (a LoadImage value) are not counted:
 * Studio uploads them to the engine that takes the job.
 */
import { comboOptions, type ApiGraph, type ObjectInfo } from '../engine-graph.js';
import { FILE_CHECKS } from '../prompt-precheck.js';
import { isModelFileName } from '../../media-types.js';

/** Inputs that name the main model: the engine keeps it loaded between jobs using it. */
const CHECKPOINT_INPUTS = ['ckpt_name', 'unet_name', 'model_name'];

/** What `graph` needs that `objectInfo` lacks: `node <type>` and `model <file>` lines (empty: it can run). */
export function missingFor(graph: ApiGraph, objectInfo: ObjectInfo): string[] {
  const missing = new Set<string>();
  for (const node of Object.values(graph)) {
    const info = Object.hasOwn(objectInfo, node.class_type) ? objectInfo[node.class_type] : undefined;
    if (!info) {
      missing.add(`node ${node.class_type}`);
      continue;
    }
    const fileInput = FILE_CHECKS[node.class_type]?.input;
    for (const [name, value] of Object.entries(node.inputs ?? {})) {
      if (typeof value !== 'string' || name === fileInput || !isModelFileName(value)) continue;
      const options = comboOptions(info.input?.required?.[name] ?? info.input?.optional?.[name]);
      if (options && !options.includes(value)) missing.add(`model ${value}`);
    }
  }
  return [...missing];
}

/** Every model file the graph names: a loader's string input that is a model weight file (not an input image), with where it is named. */
export function modelFilesOf(graph: ApiGraph): Array<{ classType: string; input: string; file: string }> {
  const found: Array<{ classType: string; input: string; file: string }> = [];
  for (const node of Object.values(graph)) {
    const fileInput = FILE_CHECKS[node.class_type]?.input;
    for (const [name, value] of Object.entries(node.inputs ?? {})) {
      if (typeof value === 'string' && name !== fileInput && isModelFileName(value)) found.push({ classType: node.class_type, input: name, file: value });
    }
  }
  return found;
}

/** The main model the graph loads (a checkpoint or UNet file), or null. */
export function checkpointOf(graph: ApiGraph): string | null {
  for (const node of Object.values(graph)) {
    for (const name of CHECKPOINT_INPUTS) {
      const value = node.inputs?.[name];
      if (typeof value === 'string' && value) return value;
    }
  }
  return null;
}

/** The input-file values (LoadImage's `image`…) of a graph: the files an engine must have before it runs it. */
export function inputFilesOf(graph: ApiGraph): string[] {
  const names = new Set<string>();
  for (const node of Object.values(graph)) {
    const input = FILE_CHECKS[node.class_type]?.input;
    const value = input ? node.inputs?.[input] : undefined;
    if (typeof value === 'string' && value && !/ \[(output|temp)\]$/.test(value)) names.add(value.replace(/ \[input\]$/, ''));
  }
  return [...names];
}

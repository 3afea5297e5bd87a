/**
 * What the whole pool can run, in the engine's own shapes: `object_info` as the union of every
 * engine's (a class any engine has; each combo list the choices some engine has), and the model
 * folders read from it (`/models/{folder}`: the files some engine lists for a loader of that folder).
 */
import type { InputSpec, NodeInfo, ObjectInfo } from '../engine/engine-graph.js';
import { listSourceOf } from '../engine/prompt-rules/list-sources.js';

/** The engine's model folder keys (`GET /models`), as ComfyUI 0.29 lists them. */
export const MODEL_FOLDERS = [
  'checkpoints', 'configs', 'loras', 'vae', 'text_encoders', 'diffusion_models', 'clip_vision', 'style_models', 'embeddings', 'diffusers', 'vae_approx', 'controlnet',
  'gligen', 'upscale_models', 'latent_upscale_models', 'custom_nodes', 'hypernetworks', 'photomaker', 'classifiers', 'model_patches', 'audio_encoders',
] as const; // prettier-ignore

/** The union of the engines' node lists (the first engine's spec of a class, with every engine's combo choices). */
export function unionObjectInfo(infos: readonly ObjectInfo[]): ObjectInfo {
  const out: ObjectInfo = {};
  for (const info of infos) {
    for (const [name, node] of Object.entries(info)) {
      const have = out[name];
      out[name] = have ? mergeNode(have, node) : structuredClone(node);
    }
  }
  return out;
}

function mergeNode(a: NodeInfo, b: NodeInfo): NodeInfo {
  for (const group of ['required', 'optional'] as const) {
    const into = a.input?.[group];
    const from = b.input?.[group];
    if (!into || !from) continue;
    for (const [input, spec] of Object.entries(from)) {
      const mine = into[input];
      if (mine) into[input] = mergeCombo(mine, spec);
    }
  }
  return a;
}

/** A combo's choices from both specs, in first-seen order; any other spec stays as it was. */
function mergeCombo(a: InputSpec, b: InputSpec): InputSpec {
  if (Array.isArray(a[0]) && Array.isArray(b[0])) return [union(a[0], b[0]), ...(a.length > 1 ? [a[1]] : [])] as InputSpec;
  const aOpts = a[0] === 'COMBO' ? a[1]?.options : undefined;
  const bOpts = b[0] === 'COMBO' ? b[1]?.options : undefined;
  if (Array.isArray(aOpts) && Array.isArray(bOpts)) return ['COMBO', { ...a[1], options: union(aOpts, bOpts) }];
  return a;
}

function union<T>(a: readonly T[], b: readonly T[]): T[] {
  const seen = new Set(a);
  return [...a, ...b.filter((x) => !seen.has(x))];
}

/** The files some engine lists for a loader that reads `folder` (null: not a folder key). */
export function modelsIn(info: ObjectInfo, folder: string): string[] | null {
  if (!(MODEL_FOLDERS as readonly string[]).includes(folder)) return null;
  const files = new Set<string>();
  for (const [classType, node] of Object.entries(info)) {
    for (const group of [node.input?.required, node.input?.optional]) {
      for (const [input, spec] of Object.entries(group ?? {})) {
        const source = listSourceOf(classType, input);
        if (!source || !('models' in source) || source.models !== folder) continue;
        const choices = Array.isArray(spec[0]) ? spec[0] : spec[0] === 'COMBO' ? spec[1]?.options : undefined;
        for (const choice of Array.isArray(choices) ? choices : []) files.add(String(choice));
      }
    }
  }
  return [...files].sort();
}

/** The output nodes of a graph (the engine's `outputs_to_execute`). */
export function outputNodesOf(graph: Record<string, { class_type: string }>, info: ObjectInfo): string[] {
  return Object.entries(graph)
    .filter(([, node]) => info[node.class_type]?.output_node === true)
    .map(([id]) => id);
}

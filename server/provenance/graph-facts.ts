/**
 * What the graph that ran says about how an output was made, read the way a person would read
 * it: the sampler (seed, steps, CFG, sampler and scheduler, denoise), the text its positive and
 * negative conditioning came from, the latent size, the checkpoint (or diffusion model) the
 * sampler's model comes from and the LoRAs on the way, and every model file any loader names.
 * Nothing is guessed: a value the graph does not hold is left out.
 */
import type { ApiGraph, ApiNode } from '../engine/engine-graph.js';
import { listSourceOf } from '../engine/prompt-rules/list-sources.js';

/** A model file a loader names, by the engine's folder name (`checkpoints`, `loras`, …). */
export interface ModelRef {
  folder: string;
  file: string;
}

export interface LoraUse extends ModelRef {
  weight: number | null;
}

export interface GraphFacts {
  prompt?: string;
  negative?: string;
  steps?: number;
  sampler?: string;
  scheduler?: string;
  cfg?: number;
  seed?: number;
  denoise?: number;
  width?: number;
  height?: number;
  /** The checkpoint (or diffusion model) the sampler's model comes from. */
  model?: ModelRef;
  loras: LoraUse[];
}

const SAMPLERS = new Set(['KSampler', 'KSamplerAdvanced']);

/** The facts of `graph` (its first sampler by node id, numerically; none: only the model files). */
export function graphFacts(graph: ApiGraph): GraphFacts {
  const facts: GraphFacts = { loras: [] };
  const samplerId = Object.keys(graph)
    .filter((id) => SAMPLERS.has(graph[id]!.class_type))
    .sort((a, b) => Number(a) - Number(b) || a.localeCompare(b))[0];
  if (samplerId === undefined) return facts;
  const sampler = graph[samplerId]!;
  const num = (name: string) => numberOf(graph, sampler.inputs[name]);
  const str = (name: string) => stringOf(graph, sampler.inputs[name]);
  assign(facts, 'seed', num('seed') ?? num('noise_seed'));
  assign(facts, 'steps', num('steps'));
  assign(facts, 'cfg', num('cfg'));
  assign(facts, 'sampler', str('sampler_name'));
  assign(facts, 'scheduler', str('scheduler'));
  assign(facts, 'denoise', num('denoise'));
  assign(facts, 'prompt', textFrom(graph, sampler.inputs.positive, new Set()));
  assign(facts, 'negative', textFrom(graph, sampler.inputs.negative, new Set()));
  const latent = upstream(graph, sampler.inputs.latent_image);
  if (latent && /^Empty.*Latent/.test(latent.class_type)) {
    assign(facts, 'width', numberOf(graph, latent.inputs.width));
    assign(facts, 'height', numberOf(graph, latent.inputs.height));
  }
  modelChain(graph, sampler.inputs.model, facts);
  return facts;
}

/** Every model file a loader of `graph` names (each once, in node order). */
export function modelRefs(graph: ApiGraph): ModelRef[] {
  const refs = new Map<string, ModelRef>();
  for (const node of Object.values(graph)) {
    for (const [input, value] of Object.entries(node.inputs ?? {})) {
      const source = listSourceOf(node.class_type, input);
      if (!source || !('models' in source) || typeof value !== 'string' || value === '' || value === 'None') continue;
      refs.set(`${source.models}/${value}`, { folder: source.models, file: value });
    }
  }
  return [...refs.values()];
}

function assign<K extends keyof GraphFacts>(facts: GraphFacts, key: K, value: GraphFacts[K] | undefined): void {
  if (value !== undefined) facts[key] = value;
}

function isLink(value: unknown): value is [string, number] {
  return Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'number';
}

function upstream(graph: ApiGraph, value: unknown): ApiNode | undefined {
  return isLink(value) ? graph[value[0]] : undefined;
}

/** A literal, or the literal a primitive node on the link holds. */
function literalOf(graph: ApiGraph, value: unknown, depth = 0): unknown {
  if (!isLink(value)) return value;
  const node = graph[value[0]];
  if (!node || depth > 8) return undefined;
  for (const key of ['value', 'text', 'string', 'seed', 'int', 'float', 'number']) {
    if (key in node.inputs) return literalOf(graph, node.inputs[key], depth + 1);
  }
  return undefined;
}

function numberOf(graph: ApiGraph, value: unknown): number | undefined {
  const v = literalOf(graph, value);
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function stringOf(graph: ApiGraph, value: unknown): string | undefined {
  const v = literalOf(graph, value);
  return typeof v === 'string' ? v : undefined;
}

/** The text a conditioning link comes from: a text encoder's text, through combine/set-area nodes. */
function textFrom(graph: ApiGraph, value: unknown, seen: Set<string>): string | undefined {
  if (!isLink(value) || seen.has(value[0])) return undefined;
  seen.add(value[0]);
  const node = graph[value[0]];
  if (!node) return undefined;
  for (const key of ['text', 'text_g', 'prompt']) {
    const text = stringOf(graph, node.inputs[key]);
    if (text !== undefined) return text;
  }
  for (const input of Object.values(node.inputs)) {
    if (!isLink(input)) continue;
    const text = textFrom(graph, input, seen);
    if (text !== undefined) return text;
  }
  return undefined;
}

/** Walk the sampler's model link back: LoRA loaders on the way, then the checkpoint or diffusion model. */
function modelChain(graph: ApiGraph, value: unknown, facts: GraphFacts): void {
  const seen = new Set<string>();
  let link = value;
  while (isLink(link) && !seen.has(link[0])) {
    seen.add(link[0]);
    const node = graph[link[0]];
    if (!node) return;
    const lora = stringOf(graph, node.inputs.lora_name);
    if (lora !== undefined) {
      facts.loras.unshift({ folder: 'loras', file: lora, weight: numberOf(graph, node.inputs.strength_model) ?? null });
    }
    for (const input of ['ckpt_name', 'unet_name']) {
      const file = stringOf(graph, node.inputs[input]);
      const source = listSourceOf(node.class_type, input);
      if (file !== undefined && source && 'models' in source) {
        facts.model = { folder: source.models, file };
        return;
      }
    }
    link = node.inputs.model;
  }
}

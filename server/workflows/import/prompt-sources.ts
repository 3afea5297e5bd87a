/**
 * Where a graph's text prompts are, found by types from `object_info`, not by class names, so a new
 * model family's encoder is found without a code change: every node that takes `CONDITIONING` and
 * gives none on is a sampling end (KSampler, or the guider a SamplerCustomAdvanced is given);
 * its conditioning inputs are followed back through any nodes that pass conditioning on (guidance,
 * combine, set-area, ControlNet-apply, zero-out, image-to-video), taking at a node with two sides
 * (`positive`/`negative` in and out) only the side it was reached by, to the multiline `STRING`
 * widgets that hold text (and through `STRING` links to the nodes that give them). A side named
 * `negative`/`uncond` is the negative prompt; one that reaches only the positive's own text (a
 * `ConditioningZeroOut` of it) is no negative. Without a schema for a class, fields named like
 * prompts (`text`, `prompt`, …) and inputs named like conditioning stand in.
 */
import { type ApiGraph, isLink, type NodeInfo, type ObjectInfo } from '../../engine/engine-graph.js';
import { byNodeId, specOf, targetKey, type InputTarget } from './input-from-spec.js';

const CONDITIONING = 'CONDITIONING';
const GUIDER = 'GUIDER';
const TEXT_NAMES = new Set(['text', 'text_g', 'text_l', 'prompt', 'clip_l', 'clip_g', 't5xxl', 'positive_prompt', 'negative_prompt']);
const NEGATIVE_SIDE = /^(negative|neg|uncond|negative_.*)$/i;

/** The prompts of a graph: groups of text fields, each group one conditioning's text. */
export interface PromptSources {
  positive: InputTarget[][];
  negative: InputTarget[][];
}

/** The text fields feeding the graph's samplers, positive and negative. */
export function promptSources(graph: ApiGraph, objectInfo: ObjectInfo): PromptSources {
  const ids = Object.keys(graph).sort(byNodeId);
  const positive: InputTarget[][] = [];
  const negative: InputTarget[][] = [];
  for (const id of ids) {
    if (!isSamplingEnd(graph, objectInfo, id)) continue;
    for (const [name, value] of Object.entries(graph[id]!.inputs)) {
      if (!isLink(value) || inputType(graph, objectInfo, id, name) !== CONDITIONING) continue;
      const texts = textsBehind(graph, objectInfo, value);
      if (texts.length > 0) (NEGATIVE_SIDE.test(name) ? negative : positive).push(texts);
    }
  }
  const positiveKeys = new Set(positive.flat().map(targetKey));
  return {
    positive: unique(positive),
    // A negative made of the positive's own text (zeroed out, or the same encoder) asks for nothing.
    negative: unique(negative.map((group) => group.filter((t) => !positiveKeys.has(targetKey(t)))).filter((group) => group.length > 0)),
  };
}

/** A node that takes conditioning and gives none on: a sampler, or a guider (it gives a `GUIDER`). */
function isSamplingEnd(graph: ApiGraph, objectInfo: ObjectInfo, id: string): boolean {
  const node = graph[id]!;
  const info = objectInfo[node.class_type];
  const takes = Object.entries(node.inputs).some(([name, value]) => isLink(value) && inputType(graph, objectInfo, id, name) === CONDITIONING);
  if (!takes) return false;
  // Without a schema: a node taking both sides is taken for a sampler.
  if (!info) return isLink(node.inputs.positive) && isLink(node.inputs.negative);
  return !(info.output ?? []).includes(CONDITIONING);
}

/** The declared type of an input (`COMBO` for a list), or a guess from its name without a schema. */
function inputType(graph: ApiGraph, objectInfo: ObjectInfo, id: string, name: string): string {
  const spec = specOf(objectInfo[graph[id]!.class_type], name);
  if (spec) return Array.isArray(spec[0]) ? 'COMBO' : String(spec[0]);
  if (/^(positive|negative|conditioning.*|cond\d*|uncond)$/i.test(name)) return CONDITIONING;
  if (name === 'guider') return GUIDER;
  return '';
}

/** Every text field reached walking back from `start` through conditioning, guider and text links. */
function textsBehind(graph: ApiGraph, objectInfo: ObjectInfo, start: [string | number, number]): InputTarget[] {
  const texts: InputTarget[] = [];
  const seen = new Set<string>();
  const queue: [string, number][] = [[String(start[0]), start[1]]];
  while (queue.length > 0) {
    const [id, slot] = queue.shift()!;
    const node = graph[id];
    if (!node || seen.has(`${id}#${slot}`)) continue;
    seen.add(`${id}#${slot}`);
    const info = objectInfo[node.class_type];
    for (const field of textFields(node.inputs, info)) if (!texts.some((t) => t.node === id && t.field === field)) texts.push({ node: id, field });
    const followed = inputsToFollow(graph, objectInfo, id, slot);
    for (const name of followed) {
      const value = node.inputs[name];
      if (isLink(value)) queue.push([String(value[0]), value[1]]);
    }
  }
  return texts;
}

/** Literal multiline `STRING` widgets (prompt-named text fields for a class without a schema). */
function textFields(inputs: Record<string, unknown>, info: NodeInfo | undefined): string[] {
  return Object.keys(inputs).filter((name) => {
    if (typeof inputs[name] !== 'string') return false;
    if (!info) return TEXT_NAMES.has(name);
    const spec = specOf(info, name);
    return spec !== undefined && spec[0] === 'STRING' && (spec[1] as { multiline?: boolean } | undefined)?.multiline === true;
  });
}

/**
 * The inputs through which output `slot` of a node gets its conditioning or text: with as many
 * conditioning outputs as inputs (a node passing `positive`/`negative` on), the input named like the
 * output, else the one at the output's place among them; otherwise every conditioning, guider and
 * text input.
 */
function inputsToFollow(graph: ApiGraph, objectInfo: ObjectInfo, id: string, slot: number): string[] {
  const node = graph[id]!;
  const followable = Object.keys(node.inputs).filter((name) => [CONDITIONING, GUIDER, 'STRING'].includes(inputType(graph, objectInfo, id, name)));
  const conditioning = followable.filter((name) => inputType(graph, objectInfo, id, name) === CONDITIONING);
  const info = objectInfo[node.class_type];
  const outputs = info?.output ?? [];
  const conditioningOutputs = outputs.map((type, index) => ({ type, index })).filter((o) => o.type === CONDITIONING);
  if (conditioning.length > 1 && conditioningOutputs.length === conditioning.length) {
    const outputName = info?.output_name?.[slot];
    if (outputName && conditioning.includes(outputName)) return [outputName];
    const place = conditioningOutputs.findIndex((o) => o.index === slot);
    const ordered = [...(info?.input_order?.required ?? []), ...(info?.input_order?.optional ?? [])].filter((name) => conditioning.includes(name));
    const side = (ordered.length === conditioning.length ? ordered : conditioning)[place];
    if (side) return [side];
  }
  // Without a schema, a node taking both sides passes them on in that order.
  if (!info && conditioning.includes('positive') && conditioning.includes('negative') && slot <= 1) return [slot === 0 ? 'positive' : 'negative'];
  return followable;
}

/** Groups without repeats (the same conditioning feeding two samplers is one prompt). */
function unique(groups: InputTarget[][]): InputTarget[][] {
  const seen = new Set<string>();
  return groups.filter((group) => {
    const key = group.map(targetKey).sort().join('|');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

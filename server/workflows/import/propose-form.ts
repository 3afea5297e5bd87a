/**
 * The form proposed for an imported workflow, from, in order: the App Mode inputs the engine's
 * frontend saves in `extra.linearData` (`inputs: [[node or widget id, widget name, config?]]`,
 * `outputs: [node id]`); nodes titled `Input: <label>` (their first widget, or the one named
 * after `@`: `Input: Style @text`); then guesses — the prompts feeding a sampler's positive and
 * negative, its seed (→ `seed`, default −1), steps, cfg and denoise, the latent size and batch,
 * a `LoadImage`'s image. A primitive that feeds several widgets becomes one input written into
 * all of them as a `{{placeholder}}` in the stored graph; the workflow's own text is stored with
 * any `{{…}}` in it escaped (`\{{…}}`), so it stays text. Outputs: every save node.
 */
import type { ManifestInput, WorkflowManifest } from '../../contracts/workflows.contract.js';
import { type ApiGraph, isLink, type ObjectInfo } from '../../engine/engine-graph.js';
import { firstWidget, humanize, inputFor, type InputTarget } from './input-from-spec.js';
import { escapePlaceholders } from '../placeholders.js';
import { isObject } from './ui-graph.js';
import type { ReadWorkflow } from './read-workflow-file.js';

export interface ProposedForm {
  inputs: ManifestInput[];
  outputs: WorkflowManifest['outputs'];
  /** The graph with `{{id}}` written where one input fills several fields. */
  graph: ApiGraph;
  /** Input id → the fields its `{{id}}` was written into, with the values they held (a re-import may undo one). */
  placeholders: Map<string, { target: InputTarget; value: unknown }[]>;
  warnings: string[];
}

const INPUT_TITLE = /^\s*input\s*:\s*(.+?)\s*(?:@\s*([A-Za-z_][\w]*))?\s*$/i;

/** Propose the form of a read workflow. */
export function proposeForm(read: ReadWorkflow, objectInfo: ObjectInfo): ProposedForm {
  const graph = structuredClone(read.graph);
  const inputs: ManifestInput[] = [];
  const warnings: string[] = [];
  const taken = new Set<string>();
  const ids = new Set<string>();
  const primitiveOf = new Map<string, number>();
  for (const [id, entry] of read.primitives ?? []) for (const t of entry.targets) primitiveOf.set(key(t), id);
  const placeholders = new Map<string, InputTarget[]>();

  const add = (target: InputTarget, wantedId: string, label: string, opts: { asSeed?: boolean } = {}): boolean => {
    if (taken.has(key(target))) return false;
    const primitive = primitiveOf.get(key(target));
    const targets = primitive === undefined ? [target] : read.primitives!.get(primitive)!.targets;
    const id = uniqueId(wantedId, ids);
    const input = inputFor(graph, objectInfo, target, id, label, { ...opts, placeholder: targets.length > 1 });
    if (!input) return false;
    ids.add(id);
    for (const t of targets) taken.add(key(t));
    if (targets.length > 1) placeholders.set(id, targets);
    inputs.push(input);
    return true;
  };

  const appMode = appModeData(read);
  for (const [node, field] of appMode.inputs) {
    if (!add({ node, field }, field, humanize(field))) warnings.push(`App Mode input ${node}/${field} cannot be set from a form; it was left out`);
  }
  for (const [node, apiNode] of Object.entries(graph)) {
    const match = INPUT_TITLE.exec(apiNode._meta?.title ?? '');
    if (!match) continue;
    const field = match[2] ?? firstWidget(graph, objectInfo, node);
    if (!field || !add({ node, field }, slug(match[1]!), match[1]!)) warnings.push(`node ${node} is titled as an input but has no widget a form can set`);
  }
  for (const [node, title] of primitiveTitles(read)) {
    const match = INPUT_TITLE.exec(title);
    const first = read.primitives!.get(node)!.targets[0];
    if (match && first) add(first, slug(match[1]!), match[1]!);
  }
  guess(graph, objectInfo, add);

  // The workflow's own text is stored escaped, so a prompt containing `{{x}}` stays text.
  for (const node of Object.values(graph)) {
    for (const [field, value] of Object.entries(node.inputs)) if (typeof value === 'string') node.inputs[field] = escapePlaceholders(value);
  }
  const written = new Map<string, { target: InputTarget; value: unknown }[]>();
  for (const [id, targets] of placeholders) {
    written.set(id, targets.map((target) => ({ target, value: read.graph[target.node]!.inputs[target.field] })));
    for (const t of targets) graph[t.node]!.inputs[t.field] = `{{${id}}}`;
  }
  const outputs = saveOutputs(graph, objectInfo, appMode.outputs);
  if (outputs.length === 0) warnings.push('the workflow has no save node: runs will finish without a result file');
  return { inputs, outputs, graph, placeholders: written, warnings };
}

type Add = (target: InputTarget, id: string, label: string, opts?: { asSeed?: boolean }) => boolean;

function guess(graph: ApiGraph, objectInfo: ObjectInfo, add: Add): void {
  const ids = Object.keys(graph).sort((a, b) => Number(a) - Number(b) || a.localeCompare(b));
  const sampler = ids.find((id) => isLink(graph[id]!.inputs.positive) && isLink(graph[id]!.inputs.negative));
  if (sampler) {
    for (const [side, label] of [['positive', 'Prompt'], ['negative', 'Negative prompt']] as const) {
      const encoder = textSource(graph, graph[sampler]!.inputs[side]);
      if (encoder) add(encoder, side, label);
    }
  }
  const seedNode = [sampler, ...ids].find((id) => id !== undefined && ['seed', 'noise_seed'].some((f) => graph[id]!.inputs[f] !== undefined && !isLink(graph[id]!.inputs[f])));
  if (seedNode) {
    const field = graph[seedNode]!.inputs.seed !== undefined && !isLink(graph[seedNode]!.inputs.seed) ? 'seed' : 'noise_seed';
    add({ node: seedNode, field }, 'seed', 'Seed', { asSeed: true });
  }
  if (sampler) {
    add({ node: sampler, field: 'steps' }, 'steps', 'Steps');
    add({ node: sampler, field: 'cfg' }, 'cfg', 'Guidance (CFG)');
  }
  const latent = ids.find((id) => typeof graph[id]!.inputs.width === 'number' && typeof graph[id]!.inputs.height === 'number');
  if (latent) {
    add({ node: latent, field: 'width' }, 'width', 'Width');
    add({ node: latent, field: 'height' }, 'height', 'Height');
    add({ node: latent, field: 'batch_size' }, 'batch_size', 'Batch size');
  }
  const loadImage = ids.find((id) => graph[id]!.class_type === 'LoadImage');
  if (loadImage) add({ node: loadImage, field: 'image' }, 'image', 'Image');
  // Denoise matters when a sampler starts from an image; at 1.0 on an empty latent it is noise.
  const denoiser = ids.find((id) => typeof graph[id]!.inputs.denoise === 'number' && (loadImage !== undefined || (graph[id]!.inputs.denoise as number) < 1));
  if (denoiser) add({ node: denoiser, field: 'denoise' }, 'denoise', 'Denoise');
  void objectInfo;
}

/** Follow conditioning back (up to a few hops) to the node holding the prompt text. */
function textSource(graph: ApiGraph, link: unknown): InputTarget | undefined {
  for (let hop = 0; hop < 6 && isLink(link); hop++) {
    const node = String(link[0]);
    const inputs = graph[node]?.inputs ?? {};
    for (const field of ['text', 'text_g', 'prompt']) if (typeof inputs[field] === 'string') return { node, field };
    link = inputs.conditioning ?? inputs.positive ?? inputs.conditioning_to ?? inputs.text;
  }
  return undefined;
}

function appModeData(read: ReadWorkflow): { inputs: [string, string][]; outputs: Set<string> | null } {
  const linear = read.ui?.extra.linearData;
  if (!isObject(linear)) return { inputs: [], outputs: null };
  const inputs: [string, string][] = [];
  for (const item of Array.isArray(linear.inputs) ? linear.inputs : []) {
    if (!Array.isArray(item) || typeof item[1] !== 'string') continue;
    const node = /^\d+/.exec(String(item[0]))?.[0];
    if (node) inputs.push([node, item[1]]);
  }
  const outputs = Array.isArray(linear.outputs) && linear.outputs.length > 0 ? new Set(linear.outputs.map(String)) : null;
  return { inputs, outputs };
}

function primitiveTitles(read: ReadWorkflow): [number, string][] {
  const out: [number, string][] = [];
  for (const id of read.primitives?.keys() ?? []) {
    const title = read.ui?.nodes.get(id)?.title;
    if (title) out.push([id, title]);
  }
  return out;
}

/** Every save node's output: images (png unless the node says), videos with their container. */
function saveOutputs(graph: ApiGraph, objectInfo: ObjectInfo, chosen: Set<string> | null): WorkflowManifest['outputs'] {
  const outputs: WorkflowManifest['outputs'] = [];
  for (const [id, node] of Object.entries(graph)) {
    if (chosen && !chosen.has(id)) continue;
    const cls = node.class_type;
    const info = objectInfo[cls];
    const isSave = /save|videocombine/i.test(cls) && (info?.output_node ?? true);
    if (!isSave) continue;
    const format = typeof node.inputs.format === 'string' ? node.inputs.format : undefined;
    if (/video|webm|mp4|videocombine/i.test(cls)) {
      const container = format?.split(/[/-]/).pop() ?? (/webm/i.test(cls) ? 'webm' : 'mp4');
      outputs.push({ type: 'video', format: container });
    } else if (/animated|webp/i.test(cls)) {
      outputs.push({ type: 'image', format: /png/i.test(cls) ? 'png' : 'webp' });
    } else {
      outputs.push({ type: 'image', format: 'png' });
    }
  }
  return outputs;
}

function key(target: InputTarget): string {
  return `${target.node}/${target.field}`;
}

/** A label → an input id (`Input: Style strength` → `style_strength`). */
function slug(label: string): string {
  const s = label.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  return /^[a-z_]/.test(s) ? s : `input_${s || 'value'}`;
}

function uniqueId(wanted: string, ids: Set<string>): string {
  const base = /^[A-Za-z_][A-Za-z0-9_]*$/.test(wanted) ? wanted : slug(wanted);
  let id = base;
  for (let n = 2; ids.has(id); n++) id = `${base}_${n}`;
  return id;
}

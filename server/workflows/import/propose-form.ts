/**
 * The form proposed for an imported workflow, from, in order: the App Mode inputs the engine's
 * frontend saves in `extra.linearData` (`inputs: [[node or widget id, widget name, config?]]`,
 * `outputs: [node id]`); nodes titled `Input: <label>` (their first widget, or the one named
 * after `@`: `Input: Style @text`); then guesses — the prompts feeding the samplers' positive and
 * negative sides (found by types, `prompt-sources.ts`), the seed (→ `seed`, default −1), steps,
 * cfg and denoise, the latent size and batch,
 * a `LoadImage`'s image; and when that leaves the form with fewer than three inputs, every widget
 * of the graph's small utility nodes (a blur's radius and sigma: up to four widgets, no loader,
 * no save node). A primitive that feeds several widgets becomes one input written into
 * all of them as a `{{placeholder}}` in the stored graph; the workflow's own text is stored with
 * any `{{…}}` in it escaped (`\{{…}}`), so it stays text. Outputs: every save node.
 */
import type { ManifestInput, WorkflowManifest } from '../../contracts/workflows.contract.js';
import { type ApiGraph, isLink, type ObjectInfo } from '../../engine/engine-graph.js';
import { byNodeId, firstWidget, humanize, inputFor, targetKey, type InputTarget } from './input-from-spec.js';
import { escapePlaceholders } from '../placeholders.js';
import { isObject } from './ui-graph.js';
import { promptSources } from './prompt-sources.js';
import type { ReadWorkflow } from './read-workflow-file.js';
import { isModelFileName } from '../../media-types.js';

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

export function proposeForm(read: ReadWorkflow, objectInfo: ObjectInfo): ProposedForm {
  const graph = structuredClone(read.graph);
  const inputs: ManifestInput[] = [];
  const warnings: string[] = [];
  const taken = new Set<string>();
  const ids = new Set<string>();
  const primitiveOf = new Map<string, number>();
  for (const [id, entry] of read.primitives ?? []) for (const t of entry.targets) primitiveOf.set(targetKey(t), id);
  const placeholders = new Map<string, InputTarget[]>();

  /** One input for `target` (or for several fields at once: one value written into all). */
  const add = (target: InputTarget | InputTarget[], wantedId: string, label: string, opts: { asSeed?: boolean } = {}): boolean => {
    const given = Array.isArray(target) ? target : [target];
    const first = given[0];
    if (!first || given.some((t) => taken.has(targetKey(t)))) return false;
    // A primitive feeding a field feeds all of its targets.
    const targets: InputTarget[] = [];
    for (const t of given) {
      const primitive = primitiveOf.get(targetKey(t));
      for (const each of primitive === undefined ? [t] : read.primitives!.get(primitive)!.targets) if (!targets.some((x) => targetKey(x) === targetKey(each))) targets.push(each);
    }
    const id = uniqueId(wantedId, ids);
    // A manifest maps an input to an integer node id; an expanded inner node (`12:3`) is filled through a placeholder.
    const placeholder = targets.length > 1 || targets.some((t) => !/^\d+$/.test(t.node));
    const input = inputFor(graph, objectInfo, first, id, label, { ...opts, placeholder });
    if (!input) return false;
    ids.add(id);
    for (const t of targets) taken.add(targetKey(t));
    if (placeholder) placeholders.set(id, targets);
    inputs.push(input);
    return true;
  };

  const appMode = appModeData(read);
  for (const [node, field] of appMode.inputs) {
    if (!add({ node, field }, field, appModeLabel(graph, objectInfo, node, field))) warnings.push(`App Mode input ${node}/${field} cannot be set from a form; it was left out`);
  }
  for (const [node, apiNode] of Object.entries(graph)) {
    const match = INPUT_TITLE.exec(apiNode._meta?.title ?? '');
    if (!match) continue;
    const field = match[2] ?? firstWidget(graph, objectInfo, node);
    if (!field || !add({ node, field }, slug(match[1]!), match[1]!)) warnings.push(`node ${node} is titled as an input but has no widget a form can set`);
  }
  for (const [node, { targets }] of read.primitives ?? []) {
    const match = INPUT_TITLE.exec(read.ui?.nodes.get(node)?.title ?? '');
    if (match && targets[0]) add(targets[0], slug(match[1]!), match[1]!);
  }
  guess(graph, objectInfo, add);
  if (inputs.length < FEW_INPUTS) utilityWidgets(graph, objectInfo, add);

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

/** Widget names that say nothing of what they set (a CLIPTextEncode's `text`, a primitive's `value`). */
const BARE_FIELDS = new Set(['text', 'value', 'string', 'int', 'float', 'number', 'boolean', 'strings']);

/**
 * An App Mode input's label: its widget's name ("Width", "Guidance"), unless that name is bare
 * ("Text"): then the node's own title ("Prompt"), else its display name ("CLIP Text Encode (Prompt)").
 */
function appModeLabel(graph: ApiGraph, objectInfo: ObjectInfo, node: string, field: string): string {
  if (!BARE_FIELDS.has(field.toLowerCase())) return humanize(field);
  const apiNode = graph[node];
  const display = objectInfo[apiNode?.class_type ?? '']?.display_name ?? apiNode?.class_type;
  const title = apiNode?._meta?.title?.trim();
  return title || display || humanize(field);
}

/** Below this many inputs a form says too little of the graph: the small nodes' widgets are proposed too. */
const FEW_INPUTS = 3;
/** A node with more widgets than this is a main step (a sampler), not a small utility. */
const UTILITY_WIDGETS = 4;

/** Every widget of the small utility nodes (ImageBlur's `blur_radius` and `sigma`), labelled by field. */
function utilityWidgets(graph: ApiGraph, objectInfo: ObjectInfo, add: Add): void {
  const ids = Object.keys(graph).sort(byNodeId);
  for (const node of ids) {
    const apiNode = graph[node]!;
    const info = objectInfo[apiNode.class_type];
    if (info?.output_node || /save|preview|loadimage/i.test(apiNode.class_type)) continue;
    const widgets = Object.entries(apiNode.inputs).filter(([field, value]) => field !== 'filename_prefix' && !isLink(value) && ['number', 'boolean', 'string'].includes(typeof value));
    if (widgets.length === 0 || widgets.length > UTILITY_WIDGETS) continue;
    if (widgets.some(([, value]) => typeof value === 'string' && isModelFileName(value))) continue;
    for (const [field] of widgets) add({ node, field }, field, humanize(field));
  }
}

type Add = (target: InputTarget | InputTarget[], id: string, label: string, opts?: { asSeed?: boolean }) => boolean;

function guess(graph: ApiGraph, objectInfo: ObjectInfo, add: Add): void {
  const ids = Object.keys(graph).sort(byNodeId);
  const prompts = promptSources(graph, objectInfo);
  for (const [groups, side, label] of [[prompts.positive, 'positive', 'Prompt'], [prompts.negative, 'negative', 'Negative prompt']] as const) {
    groups.forEach((group, index) => {
      const suffix = index === 0 ? '' : ` ${index + 1}`;
      for (const [n, fields] of sameText(graph, group).entries()) add(fields, side, `${label}${suffix}${n === 0 ? '' : ` (${n + 1})`}`);
    });
  }
  const sampler = ids.find((id) => isLink(graph[id]!.inputs.positive) && isLink(graph[id]!.inputs.negative)) ?? ids.find((id) => isLink(graph[id]!.inputs.guider));
  const first = (field: string) => [sampler, ...ids].find((id) => id !== undefined && graph[id]!.inputs[field] !== undefined && !isLink(graph[id]!.inputs[field]));
  const seedNode = first('seed') ?? first('noise_seed');
  if (seedNode) add({ node: seedNode, field: graph[seedNode]!.inputs.seed !== undefined && !isLink(graph[seedNode]!.inputs.seed) ? 'seed' : 'noise_seed' }, 'seed', 'Seed', { asSeed: true });
  for (const [field, label] of [['steps', 'Steps'], ['cfg', 'Guidance (CFG)']] as const) {
    const node = first(field);
    if (node) add({ node, field }, field, label);
  }
  // The size is the latent's (a node giving LATENT), not a text encoder's conditioning size (SDXL's).
  const sized = ids.filter((id) => typeof graph[id]!.inputs.width === 'number' && typeof graph[id]!.inputs.height === 'number');
  const latent = sized.find((id) => (objectInfo[graph[id]!.class_type]?.output ?? []).includes('LATENT')) ?? sized[0];
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
}

/**
 * The fields of one conditioning's text, grouped by value: fields holding the same text (SDXL's
 * `text_g`/`text_l`, Flux's `clip_l`/`t5xxl` as usually written) become one input written into all;
 * different texts stay inputs of their own, so a test run with the defaults runs the workflow as it was.
 */
function sameText(graph: ApiGraph, group: InputTarget[]): InputTarget[][] {
  const byText = new Map<unknown, InputTarget[]>();
  for (const target of group) {
    const value = graph[target.node]?.inputs[target.field];
    byText.set(value, [...(byText.get(value) ?? []), target]);
  }
  return [...byText.values()];
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

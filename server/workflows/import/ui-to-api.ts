/**
 * The editor's workflow → the API graph the engine runs, following the engine frontend's
 * `graphToPrompt`: virtual nodes (primitives, reroutes, notes) and muted (mode 2) or bypassed
 * (mode 4) nodes are left out; each widget's value becomes `inputs[name]` (list values wrapped
 * as `{__value__}`), the values the frontend never sends (control modes, combo filters, the
 * upload button) are skipped; subgraphs are flattened first (`subgraphs.ts`); then each linked input becomes `[origin id, slot]`, looking
 * through reroutes, taking a primitive's value, and passing a bypassed node's matching-type
 * input through. Inputs whose origin was left out are dropped, as the frontend drops them.
 */
import type { ApiGraph, NodeInfo, ObjectInfo } from '../../engine/engine-graph.js';
import { widgetValueNames } from '../ui-node-layout.js';
import { flattenSubgraphs } from './subgraphs.js';
import { expandGroupNodes } from './group-nodes.js';
import { invalid, MODE_BYPASS, MODE_MUTED, type UiGraphRef, type UiLinkRef, type UiNodeRef } from './ui-graph.js';

/** Node types the frontend draws but never sends (its `isVirtualNode`s). */
const VIRTUAL_TYPES = new Set(['PrimitiveNode', 'Reroute', 'Note', 'MarkdownNote']);

export interface ConvertResult {
  graph: ApiGraph;
  /** Primitive node id → the API inputs its value was copied into (one form input drives them all). */
  primitives: Map<number, { title?: string; targets: { node: string; field: string }[] }>;
  warnings: string[];
}

/** Convert a read UI graph; `objectInfo` names the widgets of the node types the engine has. */
export function uiToApiGraph(read: UiGraphRef, objectInfo: ObjectInfo): ConvertResult {
  const warnings: string[] = [];
  const ui = flattenSubgraphs(expandGroupNodes(read, objectInfo, warnings));
  for (const link of ui.links.values()) {
    if (!ui.nodes.has(link.from)) throw invalid(`link ${link.id} comes from node ${link.from}, which the workflow lacks`);
    if (!ui.nodes.has(link.to)) throw invalid(`link ${link.id} goes to node ${link.to}, which the workflow lacks`);
  }
  const graph: ApiGraph = {};
  const primitives: ConvertResult['primitives'] = new Map();
  const memo = new Map<string, Resolved>();
  const apiId = (id: number): string => ui.nodes.get(id)?.path ?? String(id);
  for (const node of ui.nodes.values()) {
    if (VIRTUAL_TYPES.has(node.type) || node.mode === MODE_MUTED || node.mode === MODE_BYPASS) continue;
    const inputs = widgetInputs(node, objectInfo[node.type], warnings);
    for (const [name, value] of Object.entries(node.overrides ?? {})) inputs[name] = wrapList(value);
    for (const input of node.inputs) {
      if (input.link === null) continue;
      const link = ui.links.get(input.link);
      if (!link) throw invalid(`node ${node.id} input "${input.name}" uses link ${input.link}, which the workflow lacks`);
      const resolved = resolveLink(ui, link, input.type, memo);
      if (resolved.kind === 'value') {
        inputs[input.name] = wrapList(resolved.value);
        const primitive = ui.nodes.get(resolved.primitive)!;
        const entry = primitives.get(primitive.id) ?? { ...(primitive.title ? { title: primitive.title } : {}), targets: [] };
        entry.targets.push({ node: apiId(node.id), field: input.name });
        primitives.set(primitive.id, entry);
      }
      else if (resolved.kind === 'link') inputs[input.name] = [apiId(resolved.from), resolved.slot];
      // Nothing at the other end: a widget keeps its own value, as in the frontend.
    }
    graph[apiId(node.id)] = { class_type: node.type, inputs, _meta: { title: node.title ?? objectInfo[node.type]?.display_name ?? node.type } };
  }
  // An input linked to a node that is not in the graph (muted, unknown) is dropped, as the frontend does.
  for (const node of Object.values(graph)) {
    for (const [name, value] of Object.entries(node.inputs)) {
      if (Array.isArray(value) && value.length === 2 && !graph[String(value[0])]) delete node.inputs[name];
    }
  }
  for (const entry of primitives.values()) entry.targets = entry.targets.filter((t) => graph[t.node]);
  return { graph, primitives, warnings };
}

type Resolved = { kind: 'link'; from: number; slot: number } | { kind: 'value'; value: unknown; primitive: number } | { kind: 'none' };

/**
 * Follow a link back to a real node's output, or to a primitive's value: a walk along reroutes
 * and bypassed nodes, not a recursion (a hostile chain may be thousands long), with every link's
 * answer kept in `memo` so inputs that share a chain walk it once.
 */
function resolveLink(ui: UiGraphRef, first: UiLinkRef, targetType: string, memo: Map<string, Resolved>): Resolved {
  // A bypassed node picks its input by the type of the input at the end of the chain, so that type is part of the key.
  const key = (id: number) => `${id}|${targetType}`;
  const walked: string[] = [];
  const seen = new Set<number>();
  let result: Resolved | undefined;
  for (let link: UiLinkRef | undefined = first; result === undefined; ) {
    if (!link) {
      result = { kind: 'none' };
      break;
    }
    const known = memo.get(key(link.id));
    if (known) {
      result = known;
      break;
    }
    if (seen.has(link.id)) throw invalid(`link ${link.id} is part of a loop of reroutes or bypassed nodes`);
    seen.add(link.id);
    walked.push(key(link.id));
    const step = resolveStep(ui, link, targetType);
    if ('next' in step) link = step.next === null ? undefined : ui.links.get(step.next);
    else result = step;
  }
  for (const id of walked) memo.set(id, result);
  return result;
}

/** One link's origin: an answer, or the next link to follow (`null`: nothing there). */
function resolveStep(ui: UiGraphRef, link: UiLinkRef, targetType: string): Resolved | { next: number | null } {
  const origin = ui.nodes.get(link.from)!;
  if (origin.type === 'PrimitiveNode') {
    const values = origin.widgetsValues;
    return Array.isArray(values) && values.length > 0 ? { kind: 'value', value: values[0], primitive: origin.id } : { kind: 'none' };
  }
  if (origin.type === 'Reroute') return { next: origin.inputs[0]?.link ?? null };
  if (origin.type === 'Note' || origin.type === 'MarkdownNote') return { kind: 'none' };
  // A muted origin stays a link here; the pass after conversion drops links to absent nodes.
  if (origin.mode === MODE_MUTED) return { kind: 'link', from: origin.id, slot: link.fromSlot };
  if (origin.mode === MODE_BYPASS) {
    const index = bypassSlot(origin, link.fromSlot, targetType);
    return { next: index === -1 ? null : (origin.inputs[index]?.link ?? null) };
  }
  return { kind: 'link', from: origin.id, slot: link.fromSlot };
}

/**
 * The input a bypassed node passes through to its output `slot`, for a link that ends at an input
 * of `type` (the frontend's rule): any type takes the same index (else the first input); else the
 * input at the same index when it fits both the output's type and `type`; else the first input of
 * exactly `type`; else the first that fits both. Linked or not: an unlinked one passes nothing.
 */
function bypassSlot(node: UiNodeRef, slot: number, type: string): number {
  const { inputs } = node;
  if (type === '*' || type === '') return inputs.length > slot ? slot : 0;
  const outputType = node.outputs[slot]?.type ?? '*';
  const fits = (input: { type: string }) => typesMatch(input.type, outputType) && typesMatch(input.type, type);
  const opposite = inputs[slot];
  if (opposite && fits(opposite)) return slot;
  const exact = inputs.findIndex((input) => input.type === type);
  if (exact !== -1) return exact;
  return inputs.findIndex(fits);
}

/** Two slot types connect: equal, either is any (`*`, empty), or comma lists sharing a type (case aside). */
function typesMatch(a: string, b: string): boolean {
  if (a === '*' || b === '*' || a === '' || b === '' || a === b) return true;
  const split = (t: string) => t.toUpperCase().split(',').map((s) => s.trim());
  const right = split(b);
  return split(a).some((part) => right.includes(part));
}

/** The node's widget values by name, from the schema's widget order (or the node's own names). */
function widgetInputs(node: UiNodeRef, def: NodeInfo | undefined, warnings: string[]): Record<string, unknown> {
  const inputs: Record<string, unknown> = {};
  const values = node.widgetsValues;
  if (!Array.isArray(values)) {
    // Some packs (VideoHelperSuite) store a dict keyed by widget name; UI-only keys are dropped.
    const declared = def ? new Set([...Object.keys(def.input?.required ?? {}), ...Object.keys(def.input?.optional ?? {})]) : null;
    for (const [name, value] of Object.entries(values)) if (!declared || declared.has(name)) inputs[name] = wrapList(value);
    return inputs;
  }
  if (values.length === 0) return inputs;
  let names: (string | null)[];
  if (def) {
    names = widgetValueNames(def);
  } else {
    // Without a schema, current frontends still list each widget as an input socket, in order.
    names = node.inputs.filter((input) => input.widget !== undefined).map((input) => input.widget!);
    if (names.length !== values.length) {
      warnings.push(`node ${node.id} (${node.type}) is unknown to the engine: its ${values.length} widget values could not be named`);
      return inputs;
    }
  }
  if (names.length !== values.length) {
    warnings.push(`node ${node.id} (${node.type}) has ${values.length} widget values where the engine's schema has ${names.length}; they were matched in order`);
  }
  names.forEach((name, index) => {
    if (name !== null && index < values.length) inputs[name] = wrapList(values[index]);
  });
  return inputs;
}

/** A list literal travels as `{__value__: [...]}`, as the engine reads any 2-list as a link. */
function wrapList(value: unknown): unknown {
  return Array.isArray(value) ? { __value__: value } : value;
}

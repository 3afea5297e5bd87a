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
  const ui = flattenSubgraphs(read);
  for (const link of ui.links.values()) {
    if (!ui.nodes.has(link.from)) throw invalid(`link ${link.id} comes from node ${link.from}, which the workflow lacks`);
    if (!ui.nodes.has(link.to)) throw invalid(`link ${link.id} goes to node ${link.to}, which the workflow lacks`);
  }
  const graph: ApiGraph = {};
  const primitives: ConvertResult['primitives'] = new Map();
  const memo = new Map<number, Resolved>();
  for (const node of ui.nodes.values()) {
    if (VIRTUAL_TYPES.has(node.type) || node.mode === MODE_MUTED || node.mode === MODE_BYPASS) continue;
    const inputs = widgetInputs(node, objectInfo[node.type], warnings);
    for (const [name, value] of Object.entries(node.overrides ?? {})) inputs[name] = wrapList(value);
    for (const input of node.inputs) {
      if (input.link === null) continue;
      const link = ui.links.get(input.link);
      if (!link) throw invalid(`node ${node.id} input "${input.name}" uses link ${input.link}, which the workflow lacks`);
      const resolved = resolveLink(ui, link, memo);
      if (resolved.kind === 'value') {
        inputs[input.name] = wrapList(resolved.value);
        const primitive = ui.nodes.get(resolved.primitive)!;
        const entry = primitives.get(primitive.id) ?? { ...(primitive.title ? { title: primitive.title } : {}), targets: [] };
        entry.targets.push({ node: String(node.id), field: input.name });
        primitives.set(primitive.id, entry);
      }
      else if (resolved.kind === 'link') inputs[input.name] = [String(resolved.from), resolved.slot];
      // Nothing at the other end: a widget keeps its own value, as in the frontend.
    }
    graph[String(node.id)] = { class_type: node.type, inputs, _meta: { title: node.title ?? objectInfo[node.type]?.display_name ?? node.type } };
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
function resolveLink(ui: UiGraphRef, first: UiLinkRef, memo: Map<number, Resolved>): Resolved {
  const walked: number[] = [];
  const seen = new Set<number>();
  let result: Resolved | undefined;
  for (let link: UiLinkRef | undefined = first; result === undefined; ) {
    if (!link) {
      result = { kind: 'none' };
      break;
    }
    const known = memo.get(link.id);
    if (known) {
      result = known;
      break;
    }
    if (seen.has(link.id)) throw invalid(`link ${link.id} is part of a loop of reroutes or bypassed nodes`);
    seen.add(link.id);
    walked.push(link.id);
    const step = resolveStep(ui, link);
    if ('next' in step) link = step.next === null ? undefined : ui.links.get(step.next);
    else result = step;
  }
  for (const id of walked) memo.set(id, result);
  return result;
}

/** One link's origin: an answer, or the next link to follow (`null`: nothing there). */
function resolveStep(ui: UiGraphRef, link: UiLinkRef): Resolved | { next: number | null } {
  const origin = ui.nodes.get(link.from)!;
  if (origin.type === 'PrimitiveNode') {
    const values = origin.widgetsValues;
    return Array.isArray(values) && values.length > 0 ? { kind: 'value', value: values[0], primitive: origin.id } : { kind: 'none' };
  }
  if (origin.type === 'Reroute') return { next: origin.inputs[0]?.link ?? null };
  if (origin.type === 'Note' || origin.type === 'MarkdownNote') return { kind: 'none' };
  // A muted origin stays a link here; the pass after conversion drops links to absent nodes.
  if (origin.mode === MODE_MUTED) return { kind: 'link', from: origin.id, slot: link.fromSlot };
  if (origin.mode === MODE_BYPASS) return { next: bypassInput(origin, link) };
  return { kind: 'link', from: origin.id, slot: link.fromSlot };
}

/**
 * A bypassed node passes through its input of the link's type: the one at the same index as the
 * output first, then the first matching one (the frontend's rule).
 */
function bypassInput(node: UiNodeRef, link: UiLinkRef): number | null {
  const type = node.outputs[link.fromSlot]?.type ?? link.type;
  const matches = (index: number) => {
    const input = node.inputs[index];
    return input !== undefined && input.link !== null && typesMatch(input.type, type);
  };
  if (matches(link.fromSlot)) return node.inputs[link.fromSlot]!.link;
  const index = node.inputs.findIndex((_, i) => matches(i));
  return index === -1 ? null : node.inputs[index]!.link;
}

function typesMatch(a: string, b: string): boolean {
  if (a === '*' || b === '*' || a === b) return true;
  const split = (t: string) => t.split(',').map((s) => s.trim());
  return split(a).some((part) => split(b).includes(part));
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

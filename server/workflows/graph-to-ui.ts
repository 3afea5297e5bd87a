/**
 * API graph → the engine's UI workflow (schema 0.4), so a built graph opens in the engine's own
 * editor. Per-node widget rules live in `ui-node-layout.ts`; this file assigns ids, links,
 * outputs, execution order and a layered layout. Rules: those of the engine's own frontend.
 */
import type { UiInput, UiLink, UiNode, UiOutput, UiWorkflow } from './types.js';
import { type ApiGraph, type ApiNode, isLink, type NodeInfo, type ObjectInfo } from '../engine/engine-graph.js';
import { layoutNode, type NodeLayout, unwrapValue } from './ui-node-layout.js';

const COLUMN_WIDTH = 400;
const ROW_GAP = 50;
const MARGIN = 50;
const NODE_WIDTH = 320;
/** Unknown node types are tinted red, like the editor shows missing nodes. */
const MISSING_COLOR = '#a33';

interface PendingLink {
  id: number;
  from: string;
  fromSlot: number;
  to: string;
  input: string;
}

/**
 * Convert an API graph. Node types absent from `objectInfo` keep their links but get empty
 * `widgets_values`; their class names are listed in `extra.missing_node_types`.
 */
export function apiToUiWorkflow(graph: ApiGraph, objectInfo: ObjectInfo): UiWorkflow {
  const ids = Object.keys(graph);
  const uiIds = assignUiIds(ids);
  const { links, byTarget } = collectLinks(graph);
  const outputType = (id: string, slot: number): string => socketType(objectInfo[graph[id]!.class_type]?.output?.[slot]);

  const missing = new Set<string>();
  const nodes = new Map<string, UiNode>();
  const slots = new Map<string, Map<string, number>>();
  for (const id of ids) {
    const node = graph[id]!;
    const def = objectInfo[node.class_type];
    const linkIds = byTarget.get(id) ?? new Map<string, number>();
    if (!def) missing.add(node.class_type);
    const layout = def ? layoutNode(node, def, linkIds) : missingLayout(links, id, outputType);
    slots.set(id, layout.slots);
    nodes.set(id, {
      id: uiIds.get(id)!,
      type: node.class_type,
      pos: [0, 0],
      size: [NODE_WIDTH, 0],
      flags: {},
      order: 0,
      mode: 0,
      inputs: layout.inputs,
      outputs: buildOutputs(id, def, links),
      properties: { 'Node name for S&R': node.class_type },
      widgets_values: node.class_type.startsWith('VHS_') && def ? vhsWidgets(layout, node) : layout.widgets,
      ...titleOf(node, def),
      ...(def ? {} : { color: MISSING_COLOR, bgcolor: MISSING_COLOR }),
    });
  }
  for (const node of nodes.values()) {
    const count = Array.isArray(node.widgets_values) ? node.widgets_values.length : Object.keys(node.widgets_values).length;
    node.size = [NODE_WIDTH, 60 + 26 * count];
  }

  const uiLinks: UiLink[] = links.map((link) => [
    link.id,
    uiIds.get(link.from)!,
    link.fromSlot,
    uiIds.get(link.to)!,
    slots.get(link.to)?.get(link.input) ?? 0,
    outputType(link.from, link.fromSlot),
  ]);
  placeNodes(ids, links, nodes);

  return {
    last_node_id: Math.max(0, ...uiIds.values()),
    last_link_id: links.length,
    nodes: [...nodes.values()],
    links: uiLinks,
    groups: [],
    config: {},
    extra: { ds: { scale: 1, offset: [0, 0] }, ...(missing.size ? { missing_node_types: [...missing].sort() } : {}) },
    version: 0.4,
  };
}

/** Integer-like ids keep their number; any other id gets a fresh one above the largest. */
function assignUiIds(ids: string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const id of ids) if (/^(0|[1-9]\d{0,8})$/.test(id)) out.set(id, Number(id));
  let next = Math.max(0, ...out.values()) + 1;
  for (const id of ids) if (!out.has(id)) out.set(id, next++);
  return out;
}

/** Number every link (target node order, then input order); links to absent nodes are dropped. */
function collectLinks(graph: ApiGraph): { links: PendingLink[]; byTarget: Map<string, Map<string, number>> } {
  const links: PendingLink[] = [];
  const byTarget = new Map<string, Map<string, number>>();
  for (const [id, node] of Object.entries(graph)) {
    const mine = new Map<string, number>();
    for (const [input, value] of Object.entries(node.inputs)) {
      if (!isLink(value) || !graph[String(value[0])]) continue;
      const link = { id: links.length + 1, from: String(value[0]), fromSlot: value[1], to: id, input };
      links.push(link);
      mine.set(input, link.id);
    }
    byTarget.set(id, mine);
  }
  return { links, byTarget };
}

function buildOutputs(id: string, def: NodeInfo | undefined, links: PendingLink[]): UiOutput[] {
  const fromHere = links.filter((link) => link.from === id);
  const types = def?.output ?? Array.from({ length: Math.max(0, ...fromHere.map((link) => link.fromSlot + 1)) }, () => '*');
  return types.map((type, slot) => {
    const mine = fromHere.filter((link) => link.fromSlot === slot).map((link) => link.id);
    return { name: def?.output_name?.[slot] ?? socketType(type), type: socketType(type), links: mine.length ? mine : null, slot_index: slot };
  });
}

/** A node type the engine does not know: one socket per incoming link, no widgets. */
function missingLayout(links: PendingLink[], id: string, outputType: (id: string, slot: number) => string): NodeLayout {
  const inputs: UiInput[] = links
    .filter((link) => link.to === id)
    .map((link) => ({ name: link.input, type: outputType(link.from, link.fromSlot), link: link.id }));
  const slots = new Map(inputs.map((input, index) => [input.name, index]));
  return { inputs, widgets: [], widgetsByName: {}, slots, extras: [] };
}

/** VHS stores widgets as a dict by name, format-specific extras after `format`, plus its preview. */
function vhsWidgets(layout: NodeLayout, node: ApiNode): Record<string, unknown> {
  const extras: Record<string, unknown> = {};
  for (const name of layout.extras) if (!isLink(node.inputs[name])) extras[name] = unwrapValue(node.inputs[name]);
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(layout.widgetsByName)) {
    out[name] = value;
    if (name === 'format') Object.assign(out, extras);
  }
  if (!('format' in layout.widgetsByName)) Object.assign(out, extras);
  out.videopreview = { hidden: false, paused: false, params: {} };
  return out;
}

function titleOf(node: ApiNode, def: NodeInfo | undefined): { title?: string } {
  const title = node._meta?.title;
  const shown = def?.display_name ?? node.class_type;
  return typeof title === 'string' && title !== '' && title !== shown ? { title } : {};
}

function socketType(type: string | string[] | undefined): string {
  if (type === undefined) return '*';
  return Array.isArray(type) ? 'COMBO' : type;
}

/** Execution order (topological, stable) and a layered layout: x by depth, stacked in columns. */
function placeNodes(ids: string[], links: PendingLink[], nodes: Map<string, UiNode>): void {
  const incoming = new Map(ids.map((id) => [id, new Set<string>()]));
  for (const link of links) incoming.get(link.to)!.add(link.from);
  const depth = new Map<string, number>();
  const order: string[] = [];
  const pending = new Set(ids);
  while (pending.size) {
    const ready = [...pending].filter((id) => [...incoming.get(id)!].every((source) => depth.has(source)));
    // A cycle cannot run in the engine, but the editor should still open it: break it in id order.
    for (const id of ready.length ? ready : [[...pending][0]!]) {
      const sources = [...incoming.get(id)!].filter((source) => depth.has(source));
      depth.set(id, sources.length ? Math.max(...sources.map((source) => depth.get(source)!)) + 1 : 0);
      order.push(id);
      pending.delete(id);
    }
  }
  const columnY = new Map<number, number>();
  order.forEach((id, index) => {
    const node = nodes.get(id)!;
    const column = depth.get(id)!;
    const y = columnY.get(column) ?? MARGIN;
    node.order = index;
    node.pos = [MARGIN + column * COLUMN_WIDTH, y];
    columnY.set(column, y + node.size[1] + ROW_GAP);
  });
}

/**
 * Subgraphs flattened into one graph, as the engine's frontend does before it sends a prompt:
 * each instance (a node whose type is a subgraph id) is replaced by its inner nodes; a link from
 * the subgraph's input node (-10) becomes the outer link into the instance's input, a link into
 * its output node (-20) becomes the origin of every outer link out of the instance's output.
 * Inner nodes get fresh integer ids for the walk and keep, as their API id, the path the frontend
 * gives them: the instance's id and the inner node's, `:`-joined (`12:3`, nested `12:5:3`). A value typed on the
 * instance for an unlinked input (a promoted widget) wins over the inner node's own value.
 * Muted and bypassed instances stay whole, so the converter drops or passes them through.
 *
 * The file is untrusted: before anything is copied, the size the graph expands to and the depth
 * of nesting are counted once per definition (memoized, so nesting cannot make the count itself
 * exponential), and a graph over `MAX_GRAPH_NODES`, `MAX_GRAPH_PARTS` or `MAX_SUBGRAPH_DEPTH` is
 * refused (413) naming the limit. The expansion then works from a list of instances and an index of links by origin, so
 * its cost is the size of what it produces.
 */
import { DomainError } from '../../domain-error.js';
import { invalid, MODE_BYPASS, MODE_MUTED, SUBGRAPH_INPUT_NODE, SUBGRAPH_OUTPUT_NODE, type SubgraphDef, type UiGraphRef, type UiLinkRef, type UiNodeRef } from './ui-graph.js';

/** The most nodes a workflow may have once its subgraphs are expanded (real ones have hundreds). */
export const MAX_GRAPH_NODES = 10_000;
/** The most links and input/output sockets, all together, once expanded. */
export const MAX_GRAPH_PARTS = 100_000;
/** The deepest subgraphs may nest (real ones nest two or three deep). */
export const MAX_SUBGRAPH_DEPTH = 16;

/** A copy of `ui` with every live subgraph instance expanded. */
export function flattenSubgraphs(ui: UiGraphRef): UiGraphRef {
  checkSize(ui);
  if (ui.subgraphs.size === 0) return ui;
  const nodes = new Map(ui.nodes);
  const links = new Map(ui.links);
  const from = new Map<number, Set<number>>();
  const to = new Map<number, Set<number>>();
  const ids = { node: 0, link: 0 };
  for (const link of links.values()) {
    originIndex(from, link.from).add(link.id);
    originIndex(to, link.to).add(link.id);
    ids.link = Math.max(ids.link, link.id);
  }
  for (const id of nodes.keys()) ids.node = Math.max(ids.node, id);
  const pending = [...nodes.values()].filter((node) => isLiveInstance(ui, node));
  for (let instance = pending.pop(); instance; instance = pending.pop()) {
    pending.push(...expand(ui, instance, ui.subgraphs.get(instance.type)!, { nodes, links, from, to, ids }));
  }
  return { ...ui, nodes, links, subgraphs: new Map() };
}

function isLiveInstance(ui: UiGraphRef, node: UiNodeRef): boolean {
  return ui.subgraphs.has(node.type) && node.mode !== MODE_MUTED && node.mode !== MODE_BYPASS;
}

/** Refuse a graph that would expand past the limits, or whose subgraphs contain themselves. */
function checkSize(ui: UiGraphRef): void {
  const sizes = new Map<string, Size>();
  const visiting = new Set<string>();
  const measure = (nodes: Iterable<UiNodeRef>, links: number): Size => {
    const total: Size = { nodes: 0, parts: links, depth: 0 };
    for (const node of nodes) {
      total.parts += node.inputs.length + node.outputs.length;
      if (!isLiveInstance(ui, node)) total.nodes++;
      else {
        const inner = sizeOf(node.type);
        total.nodes += inner.nodes;
        total.parts += inner.parts;
        total.depth = Math.max(total.depth, inner.depth);
      }
      // Checked as it grows: the sums of a hostile file must not run on into huge numbers.
      if (total.nodes > MAX_GRAPH_NODES) throw tooLarge(`expands to more than ${MAX_GRAPH_NODES} nodes`);
      if (total.parts > MAX_GRAPH_PARTS) throw tooLarge(`expands to more than ${MAX_GRAPH_PARTS} links and sockets`);
    }
    return total;
  };
  const sizeOf = (id: string): Size => {
    const known = sizes.get(id);
    if (known) return known;
    if (visiting.has(id)) throw invalid('the subgraphs nest without end (a subgraph contains itself)');
    visiting.add(id);
    const def = ui.subgraphs.get(id)!;
    const inner = measure(def.nodes.values(), def.links.size);
    const size = { ...inner, depth: inner.depth + 1 };
    if (size.depth > MAX_SUBGRAPH_DEPTH) throw tooLarge(`nests subgraphs more than ${MAX_SUBGRAPH_DEPTH} deep`);
    visiting.delete(id);
    sizes.set(id, size);
    return size;
  };
  measure(ui.nodes.values(), ui.links.size);
}

interface Size {
  nodes: number;
  parts: number;
  depth: number;
}

/** 413 for a file past a limit: `what` the workflow does (`expands to more than 10000 nodes`). */
export function tooLarge(what: string): DomainError {
  return new DomainError('too_large', `the workflow ${what} (the limit for an imported workflow)`);
}

interface Flat {
  nodes: Map<number, UiNodeRef>;
  links: Map<number, UiLinkRef>;
  /** Origin node → ids of the links that start there. */
  from: Map<number, Set<number>>;
  /** Target node → ids of the links that end there. */
  to: Map<number, Set<number>>;
  ids: { node: number; link: number };
}

function originIndex(from: Map<number, Set<number>>, node: number): Set<number> {
  let set = from.get(node);
  if (!set) from.set(node, (set = new Set()));
  return set;
}

/** Replace `instance` by the nodes of `def`; returns the live instances among the new nodes. */
function expand(ui: UiGraphRef, instance: UiNodeRef, def: SubgraphDef, flat: Flat): UiNodeRef[] {
  const { nodes, links, from, to, ids } = flat;
  const nodeId = new Map<number, number>();
  for (const inner of def.nodes.keys()) nodeId.set(inner, ++ids.node);
  const outerInto = (slot: number): UiLinkRef | undefined => {
    const linkId = instance.inputs[slot]?.link;
    return linkId === null || linkId === undefined ? undefined : links.get(linkId);
  };
  const proxied = proxiedValues(instance);
  // An instance inside another subgraph may carry the value promoted to it from outside.
  const promoted = { ...(proxied ? proxied.byInput : promotedValues(instance)), ...instance.overrides };
  const overrides = new Map<number, Record<string, unknown>>(proxied?.byNode);
  const linkId = new Map<number, number>();
  const outputSource = new Map<number, { from: number; fromSlot: number }>();

  for (const link of def.links.values()) {
    const fromOuter = link.from === SUBGRAPH_INPUT_NODE ? outerInto(link.fromSlot) : undefined;
    const origin = link.from === SUBGRAPH_INPUT_NODE ? (fromOuter ? { from: fromOuter.from, fromSlot: fromOuter.fromSlot } : undefined) : { from: mapped(nodeId, link.from), fromSlot: link.fromSlot };
    if (link.to === SUBGRAPH_OUTPUT_NODE) {
      if (origin) outputSource.set(link.toSlot, origin);
      continue;
    }
    const target = def.nodes.get(link.to);
    if (!origin) {
      // The instance's input is not linked: a value typed on the instance reaches the inner widget.
      const name = instance.inputs[link.fromSlot]?.name;
      const field = target?.inputs[link.toSlot]?.widget ?? target?.inputs[link.toSlot]?.name;
      if (name !== undefined && field !== undefined && name in promoted) overrides.set(link.to, { ...overrides.get(link.to), [field]: promoted[name] });
      continue;
    }
    const id = ++ids.link;
    linkId.set(link.id, id);
    const targetId = mapped(nodeId, link.to);
    links.set(id, { id, from: origin.from, fromSlot: origin.fromSlot, to: targetId, toSlot: link.toSlot, type: link.type });
    originIndex(from, origin.from).add(id);
    originIndex(to, targetId).add(id);
  }

  const added: UiNodeRef[] = [];
  for (const [inner, node] of def.nodes) {
    const extra = overrides.get(inner);
    const copy: UiNodeRef = {
      ...node,
      id: nodeId.get(inner)!,
      path: `${instance.path ?? instance.id}:${inner}`,
      inputs: node.inputs.map((input) => ({ ...input, link: input.link === null ? null : (linkId.get(input.link) ?? null) })),
      ...(extra ? { overrides: { ...node.overrides, ...extra } } : {}),
    };
    nodes.set(copy.id, copy);
    if (isLiveInstance(ui, copy)) added.push(copy);
  }
  // Links into the instance are gone; links out of it now start where the subgraph's output is fed from.
  for (const id of to.get(instance.id) ?? []) links.delete(id);
  for (const id of from.get(instance.id) ?? []) {
    const link = links.get(id);
    if (!link) continue;
    const source = outputSource.get(link.fromSlot);
    if (source) {
      links.set(id, { ...link, ...source });
      originIndex(from, source.from).add(id);
    } else {
      links.delete(id);
      const target = nodes.get(link.to);
      if (target) nodes.set(target.id, { ...target, inputs: target.inputs.map((input) => (input.link === id ? { ...input, link: null } : input)) });
    }
  }
  from.delete(instance.id);
  to.delete(instance.id);
  nodes.delete(instance.id);
  return added;
}

/**
 * Values of widgets promoted with `properties.proxyWidgets` (newer frontends): the instance's widget
 * values follow that list; an entry names an inner node and its widget (written there directly), or
 * node `-1` and a subgraph input (reaching the inner widgets that input feeds). Null without one.
 */
function proxiedValues(instance: UiNodeRef): { byInput: Record<string, unknown>; byNode: Map<number, Record<string, unknown>> } | null {
  const proxy = instance.proxyWidgets;
  const values = instance.widgetsValues;
  if (!proxy || !Array.isArray(values) || values.length !== proxy.length) return null;
  const byInput: Record<string, unknown> = {};
  const byNode = new Map<number, Record<string, unknown>>();
  proxy.forEach(([node, widget], index) => {
    if (node === '-1') byInput[widget] = values[index];
    else if (/^\d+$/.test(node)) byNode.set(Number(node), { ...byNode.get(Number(node)), [widget]: values[index] });
  });
  return { byInput, byNode };
}

/** The instance's own widget values by input name (list form: in the order of its widget inputs). */
function promotedValues(instance: UiNodeRef): Record<string, unknown> {
  const values = instance.widgetsValues;
  if (!Array.isArray(values)) return { ...values };
  const widgetInputs = instance.inputs.filter((input) => input.widget !== undefined);
  if (widgetInputs.length !== values.length) return {};
  return Object.fromEntries(widgetInputs.map((input, index) => [input.name, values[index]]));
}

function mapped(nodeId: Map<number, number>, inner: number): number {
  const id = nodeId.get(inner);
  if (id === undefined) throw invalid(`a subgraph link uses node ${inner}, which the subgraph lacks`);
  return id;
}

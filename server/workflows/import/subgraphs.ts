/**
 * Subgraphs flattened into one graph, as the engine's frontend does before it sends a prompt:
 * each instance (a node whose type is a subgraph id) is replaced by its inner nodes; a link from
 * the subgraph's input node (-10) becomes the outer link into the instance's input, a link into
 * its output node (-20) becomes the origin of every outer link out of the instance's output.
 * Inner nodes get fresh integer ids (a form maps inputs to integer node ids). A value typed on the
 * instance for an unlinked input (a promoted widget) wins over the inner node's own value.
 * Muted and bypassed instances stay whole, so the converter drops or passes them through.
 */
import { invalid, MODE_BYPASS, MODE_MUTED, SUBGRAPH_INPUT_NODE, SUBGRAPH_OUTPUT_NODE, type SubgraphDef, type UiGraphRef, type UiLinkRef, type UiNodeRef } from './ui-graph.js';

/** Most instances expanded (nested ones included) before the file is taken as a loop. */
const MAX_EXPANSIONS = 2000;

/** A copy of `ui` with every live subgraph instance expanded. */
export function flattenSubgraphs(ui: UiGraphRef): UiGraphRef {
  if (ui.subgraphs.size === 0) return ui;
  const nodes = new Map(ui.nodes);
  const links = new Map(ui.links);
  const ids = { node: Math.max(0, ...nodes.keys()), link: Math.max(0, ...links.keys()) };
  for (let expansions = 0; ; expansions++) {
    const instance = [...nodes.values()].find((n) => ui.subgraphs.has(n.type) && n.mode !== MODE_MUTED && n.mode !== MODE_BYPASS);
    if (!instance) break;
    if (expansions >= MAX_EXPANSIONS) throw invalid('the subgraphs nest without end (a subgraph contains itself)');
    expand(instance, ui.subgraphs.get(instance.type)!, nodes, links, ids);
  }
  return { ...ui, nodes, links, subgraphs: new Map() };
}

function expand(instance: UiNodeRef, def: SubgraphDef, nodes: Map<number, UiNodeRef>, links: Map<number, UiLinkRef>, ids: { node: number; link: number }): void {
  const nodeId = new Map<number, number>();
  for (const inner of def.nodes.keys()) nodeId.set(inner, ++ids.node);
  const outerInto = (slot: number): UiLinkRef | undefined => {
    const linkId = instance.inputs[slot]?.link;
    return linkId === null || linkId === undefined ? undefined : links.get(linkId);
  };
  const promoted = promotedValues(instance);
  const overrides = new Map<number, Record<string, unknown>>();
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
    links.set(id, { id, from: origin.from, fromSlot: origin.fromSlot, to: mapped(nodeId, link.to), toSlot: link.toSlot, type: link.type });
  }

  for (const [inner, node] of def.nodes) {
    const extra = overrides.get(inner);
    nodes.set(nodeId.get(inner)!, {
      ...node,
      id: nodeId.get(inner)!,
      inputs: node.inputs.map((input) => ({ ...input, link: input.link === null ? null : (linkId.get(input.link) ?? null) })),
      ...(extra ? { overrides: { ...node.overrides, ...extra } } : {}),
    });
  }
  // Links out of the instance now start where the subgraph's output is fed from.
  for (const [id, link] of links) {
    if (link.to === instance.id) links.delete(id);
    else if (link.from === instance.id) {
      const source = outputSource.get(link.fromSlot);
      if (source) links.set(id, { ...link, ...source });
      else {
        links.delete(id);
        const target = nodes.get(link.to);
        if (target) nodes.set(target.id, { ...target, inputs: target.inputs.map((input) => (input.link === id ? { ...input, link: null } : input)) });
      }
    }
  }
  nodes.delete(instance.id);
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

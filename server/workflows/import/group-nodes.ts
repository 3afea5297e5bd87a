/**
 * Group nodes, the frontend's older way of packing nodes (a node of type `workflow>Name`, its
 * inner nodes saved once in `extra.groupNodes[Name]` with links by inner index), expanded as the
 * frontend expands them before it sends a prompt: inner node `i` of instance `7` is `7:i`. The
 * group's inputs are, in order, each inner node's sockets not linked inside the group, then its
 * widgets turned into sockets; its widget values, in order, each inner node's widgets (with their
 * control values) that stayed widgets; its outputs each inner node's outputs not only linked inside.
 * That order is the frontend's (`GroupNodeConfig`); it needs the inner nodes' schemas, so a group
 * whose inner node the engine lacks keeps the inner nodes' own values, with a warning.
 */
import type { NodeInfo, ObjectInfo } from '../../engine/engine-graph.js';
import { MAX_GRAPH_NODES, tooLarge } from './subgraphs.js';
import { orderedInputs, isWidgetInput, widgetValueNames } from '../ui-node-layout.js';
import { invalid, isObject, MODE_BYPASS, MODE_MUTED, readNode, type UiGraphRef, type UiLinkRef, type UiNodeRef } from './ui-graph.js';

const GROUP_TYPE = /^workflow[>/](.+)$/;

interface GroupData {
  nodes: UiNodeRef[];
  /** `[origin index, origin slot, target index, target slot]` inside the group. */
  links: [number, number, number, number][];
  /** Inner outputs also linked outside the group: `index/slot`. */
  external: Set<string>;
}

/** A copy of `ui` with every live group node replaced by its inner nodes. */
export function expandGroupNodes(ui: UiGraphRef, objectInfo: ObjectInfo, warnings: string[]): UiGraphRef {
  const saved = isObject(ui.extra.groupNodes) ? ui.extra.groupNodes : {};
  const instances = [...ui.nodes.values()].filter((n) => GROUP_TYPE.test(n.type) && n.mode !== MODE_MUTED && n.mode !== MODE_BYPASS);
  if (instances.length === 0) return ui;
  // Each group is read once, and the expansion is counted before it is made (a hostile file may repeat a big group).
  const groups = new Map<string, GroupData | null>();
  let total = ui.nodes.size;
  for (const instance of instances) {
    const name = GROUP_TYPE.exec(instance.type)![1]!;
    if (!groups.has(name)) groups.set(name, readGroup(saved[name], name));
    total += (groups.get(name)?.nodes.length ?? 1) - 1;
    if (total > MAX_GRAPH_NODES) throw tooLarge(`expands to more than ${MAX_GRAPH_NODES} nodes`);
  }
  const nodes = new Map(ui.nodes);
  const links = new Map(ui.links);
  const ids = { node: 0, link: 0 };
  for (const id of nodes.keys()) ids.node = Math.max(ids.node, id);
  for (const id of links.keys()) ids.link = Math.max(ids.link, id);
  const from = new Map<number, number[]>();
  for (const link of links.values()) from.set(link.from, [...(from.get(link.from) ?? []), link.id]);
  for (const instance of instances) {
    const data = groups.get(GROUP_TYPE.exec(instance.type)![1]!);
    if (!data) continue;
    expandOne(instance, data, objectInfo, { nodes, links, from, ids }, warnings);
  }
  return { ...ui, nodes, links };
}

function readGroup(raw: unknown, name: string): GroupData | null {
  if (!isObject(raw) || !Array.isArray(raw.nodes)) return null;
  const where = `group node "${name}": `;
  const nodes = raw.nodes.map((item, index) => {
    try {
      return readNode(isObject(item) ? { ...item, id: index } : item, index);
    } catch (error) {
      throw invalid(`${where}${(error as Error).message}`);
    }
  });
  const links: GroupData['links'] = [];
  for (const item of Array.isArray(raw.links) ? raw.links : []) {
    if (!Array.isArray(item) || item[0] === null || item[0] === undefined) continue;
    const numbers = item.slice(0, 4).map(Number) as [number, number, number, number];
    if (numbers.some((n) => !Number.isInteger(n) || n < 0) || numbers[0] >= nodes.length || numbers[2] >= nodes.length) throw invalid(`${where}a link is malformed`);
    links.push(numbers);
  }
  const external = new Set<string>();
  for (const item of Array.isArray(raw.external) ? raw.external : []) if (Array.isArray(item)) external.add(`${String(item[0])}/${String(item[1])}`);
  return { nodes, links, external };
}

interface Flat {
  nodes: Map<number, UiNodeRef>;
  links: Map<number, UiLinkRef>;
  from: Map<number, number[]>;
  ids: { node: number; link: number };
}

function expandOne(instance: UiNodeRef, data: GroupData, objectInfo: ObjectInfo, flat: Flat, warnings: string[]): void {
  const { nodes, links, ids } = flat;
  const layout = groupLayout(data, objectInfo);
  if (layout.unknown.length > 0) warnings.push(`group node ${instance.id} (${instance.type}) holds node types the engine lacks (${layout.unknown.join(', ')}): its values could not be matched to its inner nodes`);
  const inner = data.nodes.map((node, index) => ({ ...node, id: ++ids.node, path: `${instance.path ?? instance.id}:${index}`, inputs: node.inputs.map((input) => ({ ...input, link: null as number | null })) }));
  const connect = (origin: { from: number; fromSlot: number; type: string }, target: number, slot: number) => {
    const input = inner[target]!.inputs[slot];
    if (!input) return;
    const id = ++ids.link;
    links.set(id, { id, ...origin, to: inner[target]!.id, toSlot: slot });
    flat.from.set(origin.from, [...(flat.from.get(origin.from) ?? []), id]);
    input.link = id;
  };
  for (const [s, ss, t, ts] of data.links) connect({ from: inner[s]!.id, fromSlot: ss, type: inner[s]!.outputs[ss]?.type ?? '*' }, t, ts);
  layout.inputs.forEach(([index, slot], k) => {
    const linkId = instance.inputs[k]?.link;
    const outer = linkId === null || linkId === undefined ? undefined : links.get(linkId);
    if (outer) connect({ from: outer.from, fromSlot: outer.fromSlot, type: outer.type }, index, slot);
  });
  const values = Array.isArray(instance.widgetsValues) ? instance.widgetsValues : [];
  if (values.length === layout.widgets.length) {
    layout.widgets.forEach((entry, k) => {
      if (!entry) return;
      const node = inner[entry[0]]!;
      node.overrides = { ...node.overrides, [entry[1]]: values[k] };
    });
  } else if (values.length > 0 && layout.unknown.length === 0) {
    warnings.push(`group node ${instance.id} (${instance.type}) has ${values.length} widget values where its inner nodes have ${layout.widgets.length}; the inner nodes' own values were used`);
  }
  for (const node of inner) nodes.set(node.id, node);
  for (const input of instance.inputs) if (input.link !== null) links.delete(input.link);
  for (const id of flat.from.get(instance.id) ?? []) {
    const link = links.get(id);
    if (!link) continue;
    const source = layout.outputs[link.fromSlot];
    if (source) links.set(id, { ...link, from: inner[source[0]]!.id, fromSlot: source[1] });
    else {
      links.delete(id);
      const target = nodes.get(link.to);
      if (target) nodes.set(target.id, { ...target, inputs: target.inputs.map((input) => (input.link === id ? { ...input, link: null } : input)) });
    }
  }
  nodes.delete(instance.id);
}

/** The group node's inputs, widget values and outputs, each as the inner node and slot or widget it stands for. */
function groupLayout(data: GroupData, objectInfo: ObjectInfo): { inputs: [number, number][]; widgets: ([number, string] | null)[]; outputs: [number, number][]; unknown: string[] } {
  const linkedTo = new Set(data.links.map(([, , t, ts]) => `${t}/${ts}`));
  const linkedFrom = new Set(data.links.map(([s, ss]) => `${s}/${ss}`));
  const inputs: [number, number][] = [];
  const converted: [number, number][] = [];
  const widgets: ([number, string] | null)[] = [];
  const convertedWidgets: [number, string][] = [];
  const outputs: [number, number][] = [];
  const unknown: string[] = [];
  data.nodes.forEach((node, index) => {
    const def: NodeInfo | undefined = objectInfo[node.type];
    if (!def) {
      unknown.push(node.type);
      return;
    }
    const turned = new Map<string, number>();
    node.inputs.forEach((input, slot) => {
      if (input.widget !== undefined && input.widget === input.name) turned.set(input.name, slot);
    });
    const slots = orderedInputs(def).filter((input) => !isWidgetInput(input.spec));
    slots.forEach((_, slot) => {
      if (!linkedTo.has(`${index}/${slot}`)) inputs.push([index, slot]);
    });
    // Widgets turned into sockets come after every node's own inputs, in the order of their sockets.
    [...turned.entries()].sort((a, b) => a[1] - b[1]).forEach(([name], k) => {
      const slot = slots.length + k;
      if (linkedTo.has(`${index}/${slot}`)) return;
      converted.push([index, slot]);
      convertedWidgets.push([index, name]);
    });
    let skipping = false;
    for (const name of widgetValueNames(def)) {
      if (name !== null) skipping = turned.has(name);
      if (!skipping) widgets.push(name === null ? null : [index, name]);
    }
    (def.output ?? []).forEach((_, slot) => {
      if (!linkedFrom.has(`${index}/${slot}`) || data.external.has(`${index}/${slot}`)) outputs.push([index, slot]);
    });
  });
  return { inputs: [...inputs, ...converted], widgets: [...widgets, ...convertedWidgets], outputs, unknown };
}

/**
 * The editor's saved workflow (UI format), read defensively: an uploaded file is untrusted, so
 * every node and link is checked for the fields the conversion needs, and a broken file is an
 * `invalid` domain error (a 400) that says which node or link is wrong. Links come as arrays
 * (`[id, from, fromSlot, to, toSlot, type]`, schema 0.4) or objects (schema 1).
 */
import { DomainError } from '../../domain-error.js';

export interface UiLinkRef {
  id: number;
  from: number;
  fromSlot: number;
  to: number;
  toSlot: number;
  type: string;
}

export interface UiNodeRef {
  id: number;
  type: string;
  mode: number;
  title?: string;
  inputs: { name: string; type: string; link: number | null; widget?: string }[];
  outputs: { name: string; type: string }[];
  widgetsValues: unknown[] | Record<string, unknown>;
  /** Widget values that win over `widgetsValues` (a subgraph instance's promoted widgets). */
  overrides?: Record<string, unknown>;
  /** A subgraph instance's promoted widgets (`properties.proxyWidgets`: inner node id, widget name), in the order of its widget values. */
  proxyWidgets?: [string, string][];
  /** The id the API graph gives an expanded inner node: its instances' ids and its own, `:`-joined (`12:3`). */
  path?: string;
}

export interface UiGraphRef {
  nodes: Map<number, UiNodeRef>;
  links: Map<number, UiLinkRef>;
  extra: Record<string, unknown>;
  /** Subgraph definitions by id (`definitions.subgraphs`); a node whose type is one is an instance. */
  subgraphs: Map<string, SubgraphDef>;
}

/** A subgraph: its inner nodes and links; links from node -10 are its inputs, to node -20 its outputs. */
export interface SubgraphDef {
  id: string;
  nodes: Map<number, UiNodeRef>;
  links: Map<number, UiLinkRef>;
}

/** Node modes: muted nodes never run; bypassed ones pass their inputs through. */
export const MODE_MUTED = 2;
export const MODE_BYPASS = 4;

/** The ids the editor gives a subgraph's input and output boundary nodes. */
export const SUBGRAPH_INPUT_NODE = -10;
export const SUBGRAPH_OUTPUT_NODE = -20;

/** True when the parsed JSON looks like the editor's format (a `nodes` list). */
export function isUiWorkflow(value: unknown): value is Record<string, unknown> {
  return isObject(value) && Array.isArray(value.nodes);
}

/** Read the editor's format; throws `invalid` for a node without a class or a malformed link. */
export function readUiGraph(raw: Record<string, unknown>): UiGraphRef {
  const { nodes, links } = readNodesAndLinks(raw, '');
  const subgraphs = new Map<string, SubgraphDef>();
  const definitions = isObject(raw.definitions) && Array.isArray(raw.definitions.subgraphs) ? raw.definitions.subgraphs : [];
  for (const [index, item] of definitions.entries()) {
    if (!isObject(item) || typeof item.id !== 'string') throw invalid(`subgraph #${index + 1} has no id`);
    subgraphs.set(item.id, { id: item.id, ...readNodesAndLinks(item, `subgraph "${String(item.name ?? item.id)}": `) });
  }
  return { nodes, links, extra: isObject(raw.extra) ? raw.extra : {}, subgraphs };
}

function readNodesAndLinks(raw: Record<string, unknown>, where: string): Pick<SubgraphDef, 'nodes' | 'links'> {
  const nodes = new Map<number, UiNodeRef>();
  for (const [index, item] of (Array.isArray(raw.nodes) ? raw.nodes : []).entries()) {
    const node = withWhere(where, () => readNode(item, index));
    if (nodes.has(node.id)) throw invalid(`${where}node id ${node.id} appears twice`);
    nodes.set(node.id, node);
  }
  const links = new Map<number, UiLinkRef>();
  for (const [index, item] of (Array.isArray(raw.links) ? raw.links : []).entries()) {
    const link = withWhere(where, () => readLink(item, index));
    links.set(link.id, link);
  }
  return { nodes, links };
}

function withWhere<T>(where: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw where ? invalid(`${where}${(error as Error).message}`) : error;
  }
}

/** One node of the editor's format; throws `invalid` naming what is missing. */
export function readNode(item: unknown, index: number): UiNodeRef {
  if (!isObject(item)) throw invalid(`node #${index + 1} is not an object`);
  const id = Number(item.id);
  if (!Number.isInteger(id)) throw invalid(`node #${index + 1} has no numeric id`);
  if (typeof item.type !== 'string' || item.type.trim() === '') throw invalid(`node ${id} has no class (its "type" is missing)`);
  const inputs = (Array.isArray(item.inputs) ? item.inputs : []).map((input: unknown, slot) => {
    if (!isObject(input) || typeof input.name !== 'string') throw invalid(`node ${id} input ${slot} has no name`);
    const link = input.link === null || input.link === undefined ? null : Number(input.link);
    if (link !== null && !Number.isInteger(link)) throw invalid(`node ${id} input "${input.name}" has a malformed link`);
    const widget = isObject(input.widget) && typeof input.widget.name === 'string' ? input.widget.name : undefined;
    return { name: input.name, type: String(input.type ?? '*'), link, ...(widget ? { widget } : {}) };
  });
  const outputs = (Array.isArray(item.outputs) ? item.outputs : []).map((output: unknown) => ({
    name: isObject(output) ? String(output.name ?? '') : '',
    type: isObject(output) ? String(output.type ?? '*') : '*',
  }));
  const values = item.widgets_values;
  const proxy = isObject(item.properties) && Array.isArray(item.properties.proxyWidgets) ? item.properties.proxyWidgets : [];
  const proxyWidgets = proxy.filter((p): p is unknown[] => Array.isArray(p) && p.length >= 2).map((p) => [String(p[0]), String(p[1])] as [string, string]);
  return {
    id,
    type: item.type,
    mode: typeof item.mode === 'number' ? item.mode : 0,
    ...(typeof item.title === 'string' ? { title: item.title } : {}),
    inputs,
    outputs,
    widgetsValues: Array.isArray(values) ? values : isObject(values) ? values : [],
    ...(proxyWidgets.length > 0 ? { proxyWidgets } : {}),
  };
}

function readLink(item: unknown, index: number): UiLinkRef {
  const fields = Array.isArray(item)
    ? { id: item[0], from: item[1], fromSlot: item[2], to: item[3], toSlot: item[4], type: item[5] }
    : isObject(item)
      ? { id: item.id, from: item.origin_id, fromSlot: item.origin_slot, to: item.target_id, toSlot: item.target_slot, type: item.type }
      : null;
  if (!fields) throw invalid(`link #${index + 1} is neither a list nor an object`);
  const numbers = [fields.id, fields.from, fields.fromSlot, fields.to, fields.toSlot].map(Number);
  if (numbers.some((n) => !Number.isInteger(n))) throw invalid(`link #${index + 1} is malformed (ids and slots must be integers)`);
  const [id, from, fromSlot, to, toSlot] = numbers as [number, number, number, number, number];
  return { id, from, fromSlot, to, toSlot, type: String(fields.type ?? '*') };
}

/** A 400 about the uploaded file. */
export function invalid(message: string): DomainError {
  return new DomainError('invalid', message);
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

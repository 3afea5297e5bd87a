/**
 * Small helpers over API graphs shared by the builders: shape checks for parsed templates
 * and setting a mapped input (`node_id`/`field`) safely.
 */
import { type ApiGraph, type ApiNode, isLink } from '../engine/engine-graph.js';
import { templateError } from './workflow-errors.js';

/** Check that a parsed template is an API graph (`{id: {class_type, inputs}}`), or throw a 500. */
export function asApiGraph(tree: unknown, where: string): ApiGraph {
  if (tree === null || typeof tree !== 'object' || Array.isArray(tree)) {
    throw templateError(`${where}: expected an API graph object keyed by node id`);
  }
  const graph: ApiGraph = {};
  for (const [id, node] of Object.entries(tree as Record<string, unknown>)) {
    if (!isApiNode(node)) throw templateError(`${where}: node "${id}" needs class_type and inputs`);
    graph[id] = node;
  }
  return graph;
}

/** Set `graph[nodeId].inputs[field] = value`; refuses a missing node and a linked input. */
export function setMappedInput(graph: ApiGraph, nodeId: string, field: string, value: unknown, inputId: string): void {
  const node = graph[nodeId];
  if (!node) throw templateError(`input "${inputId}" maps to node ${nodeId}, which the graph lacks`);
  if (isLink(node.inputs[field])) {
    throw templateError(`input "${inputId}" maps to node ${nodeId} field "${field}", which is linked to another node`);
  }
  node.inputs[field] = value;
}

/** Ids of nodes that some other node's input links to. */
export function linkedSources(graph: ApiGraph): Set<string> {
  const sources = new Set<string>();
  for (const node of Object.values(graph)) {
    for (const value of Object.values(node.inputs)) if (isLink(value)) sources.add(String(value[0]));
  }
  return sources;
}

function isApiNode(value: unknown): value is ApiNode {
  if (value === null || typeof value !== 'object') return false;
  const node = value as Record<string, unknown>;
  return typeof node.class_type === 'string' && node.inputs !== null && typeof node.inputs === 'object' && !Array.isArray(node.inputs);
}

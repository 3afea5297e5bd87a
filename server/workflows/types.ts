/**
 * Shapes shared by the workflow modules: the engine's UI workflow format (schema 0.4), which its
 * own editor opens. The API graph and node schemas are the engine's (`engine/engine-graph.ts`).
 */

/** An input socket of a UI node. */
export interface UiInput {
  name: string;
  type: string;
  link: number | null;
  widget?: { name: string };
}

/** An output socket of a UI node. */
export interface UiOutput {
  name: string;
  type: string;
  links: number[] | null;
  slot_index: number;
}

/** One node of a UI workflow (schema 0.4). */
export interface UiNode {
  id: number;
  type: string;
  pos: [number, number];
  size: [number, number];
  flags: Record<string, unknown>;
  order: number;
  mode: number;
  inputs: UiInput[];
  outputs: UiOutput[];
  properties: Record<string, unknown>;
  /** A list in widget order; VHS nodes store a dict keyed by widget name instead. */
  widgets_values: unknown[] | Record<string, unknown>;
  title?: string;
  color?: string;
  bgcolor?: string;
}

/** `[id, fromNode, fromSlot, toNode, toSlot, type]`. */
export type UiLink = [number, number, number, number, number, string];

/** The engine's UI workflow, schema 0.4, which its own editor opens. */
export interface UiWorkflow {
  last_node_id: number;
  last_link_id: number;
  nodes: UiNode[];
  links: UiLink[];
  groups: unknown[];
  config: Record<string, unknown>;
  extra: { ds: { scale: number; offset: [number, number] }; [key: string]: unknown };
  version: 0.4;
}

/** Where an output node writes, relative to the job folder. */
export type OutputKind = 'final' | 'preview' | 'intermediate';

/**
 * Shapes shared by the workflow modules: the engine's API graph, its node schemas
 * (`object_info`), the engine's UI workflow format (schema 0.4) and node packages.
 * Wire names follow the engine, so these serialize as the engine expects.
 */

/** A link in API format: `[source node id, source output slot]`. */
export type NodeLink = [string, number];

/** One node of an API graph, as `POST /prompt` takes it. */
export interface ApiNode {
  class_type: string;
  /** Literal values, or `NodeLink`s; list literals travel wrapped as `{__value__: [...]}`. */
  inputs: Record<string, unknown>;
  _meta?: { title?: string; [key: string]: unknown };
}

/** The flat API graph, keyed by node id string. */
export type ApiGraph = Record<string, ApiNode>;

/** `[TYPE, options?]`; TYPE is a socket/primitive name or a list of combo choices. */
export type InputSpec = [type: string | string[], options?: InputOptions] | [type: string | string[]];

/** The options object of an input spec; only the keys the converter reads are typed. */
export interface InputOptions {
  default?: unknown;
  min?: number;
  max?: number;
  forceInput?: boolean;
  control_after_generate?: boolean | string;
  image_upload?: boolean;
  options?: unknown[];
  [key: string]: unknown;
}

/** One entry of the engine's `GET /object_info`. */
export interface NodeInfo {
  input?: {
    required?: Record<string, InputSpec>;
    optional?: Record<string, InputSpec>;
    hidden?: Record<string, unknown>;
  };
  input_order?: { required?: string[]; optional?: string[]; hidden?: string[] };
  output?: (string | string[])[];
  output_is_list?: boolean[];
  output_name?: string[];
  name?: string;
  display_name?: string | null;
  description?: string;
  python_module?: string;
  category?: string;
  output_node?: boolean;
  [key: string]: unknown;
}

/** `GET /object_info`, keyed by class name. */
export type ObjectInfo = Record<string, NodeInfo>;

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

/** Whether a value is an API link (`[nodeId, slot]`); the engine reads any 2-array as one. */
export function isLink(value: unknown): value is NodeLink {
  return (
    Array.isArray(value) &&
    value.length === 2 &&
    (typeof value[0] === 'string' || typeof value[0] === 'number') &&
    Number.isInteger(value[1])
  );
}

/**
 * The engine's graph formats, as its HTTP API takes and describes them: the API graph of
 * `POST /prompt` and the node schemas of `GET /object_info`. Wire names follow the engine.
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

/** Whether a value is an API link (`[nodeId, slot]`); the engine reads any 2-array as one. */
export function isLink(value: unknown): value is NodeLink {
  return (
    Array.isArray(value) &&
    value.length === 2 &&
    (typeof value[0] === 'string' || typeof value[0] === 'number') &&
    Number.isInteger(value[1])
  );
}

/** The choices of a combo input spec: classic `[[...], {...}]` or newer `["COMBO", {options: [...]}]`; null for any other input. */
export function comboOptions(spec: unknown): string[] | null {
  if (!Array.isArray(spec)) return null;
  const options: unknown = Array.isArray(spec[0]) ? spec[0] : spec[0] === 'COMBO' ? (spec[1] as InputOptions | undefined)?.options : undefined;
  return Array.isArray(options) ? options.map(String) : null;
}

/** Every choice of every combo input of an engine's nodes (its model files among them). */
export function listedChoices(info: ObjectInfo): Set<string> {
  const choices = new Set<string>();
  for (const node of Object.values(info)) {
    for (const group of [node.input?.required, node.input?.optional]) {
      for (const spec of Object.values(group ?? {})) {
        for (const choice of comboOptions(spec) ?? []) choices.add(choice);
      }
    }
  }
  return choices;
}

/**
 * How the engine's frontend lays out one node from its schema: which
 * inputs are widgets and which are sockets, the order of `widgets_values` (control widgets after
 * seeds, the `"image"` upload pseudo-widget after the required inputs), and the slot index a link
 * into each input gets. Pure: the API node and its `object_info` entry in, the UI pieces out.
 */
import type { UiInput } from './types.js';
import { type ApiNode, type InputOptions, type InputSpec, isLink, type NodeInfo } from '../engine/engine-graph.js';

const PRIMITIVE_WIDGET_TYPES = new Set(['INT', 'FLOAT', 'STRING', 'BOOLEAN', 'COMBO']);
/** The frontend adds a seed control to these INT inputs even when the schema does not ask. */
const SEED_NAMES = new Set(['seed', 'noise_seed']);
/** The value we give control widgets: re-queuing in the UI then reproduces this run. */
const CONTROL_VALUE = 'fixed';

export interface OrderedInput {
  name: string;
  spec: InputSpec;
  required: boolean;
}

/** The node's visible inputs in definition order: `input_order` required then optional. */
export function orderedInputs(def: NodeInfo): OrderedInput[] {
  const required = def.input?.required ?? {};
  const optional = def.input?.optional ?? {};
  // Old engines have no input_order; object key order is the best left (JS reorders numeric keys).
  const requiredOrder = def.input_order?.required ?? Object.keys(required);
  const optionalOrder = def.input_order?.optional ?? Object.keys(optional);
  const out: OrderedInput[] = [];
  for (const name of requiredOrder) if (required[name]) out.push({ name, spec: required[name], required: true });
  for (const name of optionalOrder) if (optional[name]) out.push({ name, spec: optional[name], required: false });
  return out;
}

/** Whether the frontend makes this input a widget (a primitive or combo without `forceInput`). */
export function isWidgetInput(spec: InputSpec): boolean {
  const [type, options] = spec;
  if (options?.forceInput === true) return false;
  return Array.isArray(type) || PRIMITIVE_WIDGET_TYPES.has(type);
}

/** True for a V1 list combo or a V3 `"COMBO"`. */
function isComboSpec(spec: InputSpec): boolean {
  return Array.isArray(spec[0]) || spec[0] === 'COMBO';
}

/** The value the frontend shows for an unset or linked widget. */
function widgetDefault(spec: InputSpec): unknown {
  const [type, options] = spec;
  if (options?.default !== undefined) return options.default;
  if (Array.isArray(type)) return type[0] ?? '';
  if (type === 'COMBO') return (options?.options ?? [])[0] ?? '';
  if (type === 'INT' || type === 'FLOAT') return 0;
  if (type === 'BOOLEAN') return false;
  return '';
}

/** The control widget values stored right after this widget (none, one for INT, two for combos). */
function controlValues(name: string, spec: InputSpec): unknown[] {
  const control = (spec[1] as InputOptions | undefined)?.control_after_generate;
  if (spec[0] === 'INT') {
    if (control === true || typeof control === 'string') return [CONTROL_VALUE];
    if (control === undefined && SEED_NAMES.has(name)) return [CONTROL_VALUE];
    return [];
  }
  if (isComboSpec(spec) && control) return [CONTROL_VALUE, ''];
  return [];
}

export interface NodeLayout {
  /** Plain sockets (all, in def order) then every widget's socket (linked or not), in def order. */
  inputs: UiInput[];
  /** `widgets_values` in widget order (list form). */
  widgets: unknown[];
  /** Widget name → value, for nodes that store a dict (VHS). */
  widgetsByName: Record<string, unknown>;
  /** Input name → the `toSlot` a link into it gets. */
  slots: Map<string, number>;
  /** API input names the schema does not declare (VHS format extras arrive this way). */
  extras: string[];
}

/**
 * Lay out one node. `linkIds` maps the node's linked input names to their UI link ids.
 * A link's toSlot indexes [every plain socket] + [every widget socket], both in def order.
 */
export function layoutNode(node: ApiNode, def: NodeInfo, linkIds: Map<string, number>): NodeLayout {
  const ordered = orderedInputs(def);
  const sockets: UiInput[] = [];
  const widgetSockets: UiInput[] = [];
  const widgetsByName: Record<string, unknown> = {};
  for (const { name, spec } of ordered) {
    const link = linkIds.get(name) ?? null;
    if (isWidgetInput(spec)) {
      const raw = node.inputs[name];
      widgetsByName[name] = raw === undefined || isLink(raw) ? widgetDefault(spec) : unwrapValue(raw);
      // Current frontends give every widget an input socket (so a link can be dropped on it later),
      // linked or not; a link's slot then always lands on a socket that exists.
      widgetSockets.push({ name, type: isComboSpec(spec) ? 'COMBO' : String(spec[0]), widget: { name }, link });
    } else {
      sockets.push({ name, type: String(spec[0]), link });
    }
  }
  const widgets = widgetSlots(ordered).map((slot) => ('stored' in slot ? slot.stored : widgetsByName[slot.name]));
  const slots = new Map<string, number>();
  [...sockets, ...widgetSockets].forEach((socket, index) => slots.set(socket.name, index));
  const declared = new Set(ordered.map((input) => input.name));
  const extras = Object.keys(node.inputs).filter((name) => !declared.has(name) && !isHidden(def, name));
  return { inputs: [...sockets, ...widgetSockets], widgets, widgetsByName, slots, extras };
}

/** `{__value__: x}` is how a list literal travels in API format; the UI stores `x`. */
export function unwrapValue(value: unknown): unknown {
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && '__value__' in value) {
    return (value as { __value__: unknown }).__value__;
  }
  return value;
}

function isHidden(def: NodeInfo, name: string): boolean {
  return def.input?.hidden?.[name] !== undefined;
}

/**
 * What each entry of a node's list-form `widgets_values` holds, in order: a widget's name, or
 * `null` for the values the frontend stores but never sends (control modes, combo filters, the
 * upload button). The reading side of `layoutNode`'s rules.
 */
export function widgetValueNames(def: NodeInfo): (string | null)[] {
  return widgetSlots(orderedInputs(def)).map((slot) => ('stored' in slot ? null : slot.name));
}

/** A node's `widgets_values` in order: each widget's input, then what is stored after it (its control values, the upload button's `'image'` after the required inputs). */
function widgetSlots(ordered: OrderedInput[]): Array<OrderedInput | { stored: unknown }> {
  const slots: Array<OrderedInput | { stored: unknown }> = [];
  let uploadPending = false;
  ordered.forEach((input, index) => {
    if (isWidgetInput(input.spec)) {
      slots.push(input, ...controlValues(input.name, input.spec).map((stored) => ({ stored })));
      if (input.required && input.spec[1]?.image_upload === true) uploadPending = true;
    }
    if (input.required && ordered[index + 1]?.required !== true && uploadPending) {
      slots.push({ stored: 'image' });
      uploadPending = false;
    }
  });
  return slots;
}

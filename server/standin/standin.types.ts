/**
 * Wire shapes of the stand-in engine. They copy the real engine's HTTP and WebSocket JSON, so
 * names stay snake_case. The graph, node and error shapes are the engine's prompt rules' own.
 */
import type { ApiGraph } from '../engine/prompt-rules/node-inputs.js';

export type { ApiGraph, ApiNode, NodeInfo, PromptError } from '../engine/prompt-rules/node-inputs.js';

export type ExtraData = Record<string, unknown>;

/** `[number, prompt_id, graph, extra_data, outputs_to_execute]`: the 5-tuple of /queue and /history. */
export type QueueItem = [number, string, ApiGraph, ExtraData, string[]];

/** Whatever an output node returned as `ui` (`{images:[…]}`, `{gifs:[…]}`, `{text:[…]}`…). */
export type NodeUi = Record<string, unknown>;

/** `[eventName, data]` as replayed in `history.status.messages`. */
export type StatusMessage = [string, Record<string, unknown>];

export interface HistoryEntry {
  prompt: QueueItem;
  outputs: Record<string, NodeUi>;
  status: { status_str: 'success' | 'error'; completed: boolean; messages: StatusMessage[] };
  meta: Record<string, { node_id: string; display_node: string; parent_node: null; real_node_id: string }>;
}

/** A value flowing along a link during simulated execution. */
export interface NodeValue {
  /** The socket type of the output slot (`IMAGE`, `LATENT`, `INT`…). */
  type: string;
  /** Pixel size, for IMAGE / LATENT / MASK / VIDEO values (feeds `%width%` / `%height%`). */
  width?: number;
  height?: number;
  /** Images in the batch (SaveImage writes one file per image). */
  batch?: number;
  /** The literal value, for primitives and strings. */
  value?: unknown;
}

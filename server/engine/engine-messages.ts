/**
 * The engine's WebSocket messages, typed as they arrive. Text frames are
 * `{type, data}` JSON; binary frames carry preview images. Fields that engine builds differ on are
 * optional; values no engine sends (garbage, `engine-message-checks.ts`) are refused here.
 */
import { isImageOf, saneMessageData } from './engine-message-checks.js';

export interface EngineStatusData {
  status?: { exec_info?: { queue_remaining?: number } };
  /** Only in the first frame after connecting. */
  sid?: string;
}

/** `execution_start` and `execution_success` carry the same data. */
export interface EngineExecutionStartData {
  prompt_id: string;
  timestamp?: number;
}

export interface EngineExecutionCachedData {
  nodes: string[];
  prompt_id: string;
  timestamp?: number;
}

export interface EngineExecutingData {
  /** `null` = the prompt finished and its history entry is written. */
  node: string | null;
  display_node?: string | null;
  /** Absent on the copy the engine re-sends to a socket that reconnects mid-prompt. */
  prompt_id?: string;
}

export interface EngineProgressData {
  value: number;
  max: number;
  prompt_id?: string;
  node?: string | null;
}

export interface EngineNodeProgressState {
  value: number;
  max: number;
  state: 'running' | 'finished' | 'error' | 'pending';
  node_id?: string;
  prompt_id?: string;
  display_node_id?: string;
  parent_node_id?: string | null;
  real_node_id?: string;
}

export interface EngineProgressStateData {
  prompt_id: string;
  nodes: Record<string, EngineNodeProgressState>;
}

export interface EngineExecutedData {
  node: string;
  display_node?: string;
  /** The node's UI dict, same shape as in history outputs. */
  output: Record<string, unknown> | null;
  prompt_id: string;
}

export interface EngineExecutionErrorData {
  prompt_id: string;
  node_id: string;
  node_type: string;
  executed?: string[];
  exception_message: string;
  exception_type?: string;
  traceback?: string[];
  current_inputs?: Record<string, unknown>;
  current_outputs?: unknown;
  timestamp?: number;
}

export interface EngineExecutionInterruptedData {
  prompt_id: string;
  node_id?: string;
  node_type?: string;
  executed?: string[];
  timestamp?: number;
}

/** Known text messages by `type`. */
export interface EngineMessageMap {
  status: EngineStatusData;
  execution_start: EngineExecutionStartData;
  execution_cached: EngineExecutionCachedData;
  executing: EngineExecutingData;
  progress: EngineProgressData;
  progress_state: EngineProgressStateData;
  executed: EngineExecutedData;
  execution_success: EngineExecutionStartData;
  execution_error: EngineExecutionErrorData;
  execution_interrupted: EngineExecutionInterruptedData;
  feature_flags: Record<string, unknown>;
}

export type KnownEngineMessageType = keyof EngineMessageMap;

export type KnownEngineMessage = {
  [K in KnownEngineMessageType]: { type: K; data: EngineMessageMap[K] };
}[KnownEngineMessageType];

/**
 * Any other text frame (`logs`, `notification`, custom-node types such as `crystools.monitor`).
 * It gets its own discriminant so that `msg.type === 'progress'` still narrows `data`.
 */
export interface OtherEngineMessage {
  type: 'other';
  /** The engine's own `type` string. */
  engineType: string;
  data: unknown;
}

export type EngineMessage = KnownEngineMessage | OtherEngineMessage;

/** A decoded preview frame (binary type 1 or 4). */
export interface EnginePreview {
  /** Type 4 carries it; type 1 is attributed to the last prompt seen running. */
  promptId?: string;
  nodeId?: string;
  displayNodeId?: string;
  /** MIME type: `image/jpeg` or `image/png`. */
  imageType: string;
  /** The image bytes (a view into `raw`, not a copy). */
  image: Buffer;
  /** The whole frame as received, for relaying without re-encoding. */
  raw: Buffer;
}

/**
 * Parse one text frame (once). Returns null for frames that are not `{type: string, data: object}`
 * and for known types whose data is not what the engine sends (a step of 1e308, an output that
 * is not a dict of lists, a missing prompt id): those never reach the trackers or Studio's clients.
 */
export function parseEngineMessage(text: string): EngineMessage | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (value === null || typeof value !== 'object') return null;
  const { type, data } = value as { type?: unknown; data?: unknown };
  if (typeof type !== 'string') return null;
  const sane = saneMessageData(type, data);
  if (sane === null) return { type: 'other', engineType: type, data };
  return sane ? (value as KnownEngineMessage) : null;
}

/** Kinds of the engine's binary WebSocket frames that Studio reads. Type 2 never leaves the engine; type 3 (text) is ignored. */
const BINARY_PREVIEW_IMAGE = 1;
const BINARY_PREVIEW_WITH_METADATA = 4;

/** Where a type 1 frame (which carries no ids) should be attributed. */
export interface PreviewAttribution {
  promptId?: string;
  nodeId?: string;
}

/**
 * Decode a binary preview frame (type 1 or 4). Returns null for other or malformed frames, and for
 * frames whose bytes are not an image of the type they declare (JPEG, PNG, WEBP): Studio relays
 * previews to browsers, which must only ever get pictures. `image` is a subarray of `raw`.
 */
export function decodePreviewFrame(raw: Buffer, fallback: PreviewAttribution): EnginePreview | null {
  if (raw.length < 8) return null;
  const kind = raw.readUInt32BE(0);
  if (kind === BINARY_PREVIEW_IMAGE) {
    const format = raw.readUInt32BE(4);
    const imageType = format === 2 ? 'image/png' : 'image/jpeg';
    const image = raw.subarray(8);
    if (!isImageOf(imageType, image)) return null;
    return { promptId: fallback.promptId, nodeId: fallback.nodeId, imageType, image, raw };
  }
  if (kind === BINARY_PREVIEW_WITH_METADATA) {
    const metaLength = raw.readUInt32BE(4);
    if (8 + metaLength > raw.length) return null;
    let meta: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(raw.toString('utf8', 8, 8 + metaLength));
      if (parsed === null || typeof parsed !== 'object') return null;
      meta = parsed as Record<string, unknown>;
    } catch {
      return null;
    }
    const imageType = stringOr(meta.image_type) ?? 'image/jpeg';
    const image = raw.subarray(8 + metaLength);
    if (!isImageOf(imageType, image)) return null;
    return {
      promptId: stringOr(meta.prompt_id),
      nodeId: stringOr(meta.node_id),
      displayNodeId: stringOr(meta.display_node_id),
      imageType,
      image,
      raw,
    };
  }
  return null;
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * The engine's HTTP protocol as Studio reads it: request and answer
 * shapes of the calls the client makes. Types only; the client is `engine.client.ts`.
 */
import type http from 'node:http';
import type { ApiGraph } from './engine-graph.js';

/** `GET /system_stats`; bytes everywhere. Only the fields Studio reads are typed. */
export interface EngineSystemStats {
  system: { os?: string; ram_total?: number; ram_free?: number; comfyui_version?: string; [key: string]: unknown };
  devices: { name: string; type: string; index: number | null; vram_total?: number; vram_free?: number; [key: string]: unknown }[];
}

export interface SubmitPromptRequest {
  prompt: ApiGraph;
  client_id: string;
  prompt_id?: string;
  extra_data?: Record<string, unknown>;
}

/** One validation error of one input (`node_errors[id].errors[]`). */
export interface EngineInputError {
  type: string;
  message: string;
  details?: string;
  extra_info?: { input_name?: string; [key: string]: unknown };
}

export type EngineNodeErrors = Record<
  string,
  { errors: EngineInputError[]; class_type?: string; dependent_outputs?: string[] }
>;

export interface SubmitPromptResponse {
  prompt_id: string;
  number: number;
  /** Can be non-empty on success: invalid outputs were dropped and the rest was queued. */
  node_errors: EngineNodeErrors;
}

/** The engine's 400 body for `POST /prompt`. */
export interface EngineValidationBody {
  error: { type: string; message: string; details?: string; extra_info?: Record<string, unknown> };
  node_errors: EngineNodeErrors;
}

export interface UploadImageOptions {
  subfolder?: string;
  type?: 'input' | 'temp' | 'output';
  overwrite?: boolean;
}

export interface UploadedImage {
  /** Always use this name: the engine renames on a clash (`x (1).png`). */
  name: string;
  subfolder: string;
  type: string;
}

/** A file reference as the engine's UI dicts carry it. */
export interface EngineFileRef {
  filename: string;
  subfolder?: string;
  type?: string;
  format?: string;
  [key: string]: unknown;
}

export interface HistoryEntry {
  prompt?: unknown[];
  outputs: Record<string, Record<string, unknown>>;
  status?: { status_str?: 'success' | 'error'; completed?: boolean; messages?: [string, Record<string, unknown>][] };
  meta?: Record<string, unknown>;
}

/** `[number, prompt_id, graph, extra_data, outputs_to_execute]`. */
export type EngineQueueItem = [number, string, ...unknown[]];

export interface EngineQueueRaw {
  queue_running: EngineQueueItem[];
  queue_pending: EngineQueueItem[];
}

export interface EngineQueue {
  running: string[];
  /** Sorted by queue number: the engine sends its raw heap. */
  pending: string[];
  raw: EngineQueueRaw;
}

export interface ViewRequest {
  filename: string;
  type?: string;
  subfolder?: string;
  /** Aborts the transfer (a client that went away). */
  signal?: AbortSignal;
  /** Sent along (`viewStream` only): a browser's `Range` and conditional headers, so video seeking works. */
  headers?: Record<string, string>;
}

/** `GET /view` as a Node stream: the status, the headers and the unread body. */
export interface ViewStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Consume it (pipe it) or `destroy()` it. */
  body: http.IncomingMessage;
}

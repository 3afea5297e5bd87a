/**
 * Recorded engine transcripts (`tests/fixtures/engine/transcripts-comfyui-0.29.0/`): what a real
 * ComfyUI 0.29.0 answered, request by request, and every WebSocket message in order. Helpers to
 * replay them against another engine and compare the answers by shape and the messages by order.
 */
import fs from 'node:fs';
import path from 'node:path';

export const TRANSCRIPTS_DIR = path.resolve(import.meta.dirname, '../fixtures/engine/transcripts-comfyui-0.29.0');

export interface HttpStep {
  method: string;
  path: string;
  label?: string;
  headers?: Record<string, string>;
  body?: { multipart?: Array<Record<string, string>>; raw?: string } | Record<string, unknown>;
}

export interface RecordedResponse {
  status: number;
  headers: Record<string, string>;
  json?: unknown;
  text?: string;
  empty?: boolean;
  binary?: { length: number; magic: string };
}

/** A message the engine sent: JSON, or a binary frame as the recorder described it. */
export type WsIn =
  | { t: number; ws: 'in'; msg: { type: string; data: Record<string, unknown> } }
  | { t: number; ws: 'in'; binary: true; type: number; metadata?: Record<string, unknown>; format?: number; image_magic?: string };

export type LogEntry =
  | { t: number; note: string }
  | { t: number; http: HttpStep; response: RecordedResponse }
  | { t: number; ws: 'out'; msg: { type: string; data: Record<string, unknown> } }
  | WsIn
  | { t: number; ws: 'closed'; code: number };

/** Whether a log entry is a message the engine sent. */
export function isWsIn(entry: LogEntry): entry is WsIn {
  return 'ws' in entry && entry.ws === 'in';
}

export interface Transcript {
  scenario: string;
  log: LogEntry[];
}

/** Every recorded scenario, in the order they were recorded (later ones use earlier ones' files). */
export function loadTranscripts(): Transcript[] {
  return fs
    .readdirSync(TRANSCRIPTS_DIR)
    .filter((f) => /^\d\d-.*\.json$/.test(f))
    .sort()
    .map((f) => JSON.parse(fs.readFileSync(path.join(TRANSCRIPTS_DIR, f), 'utf8')) as Transcript);
}

/** A WebSocket message as compared: its type, plus the node for per-node messages. */
export function signature(entry: { type: string; data: Record<string, unknown> } | { binary: true; type: number; format?: number }): string {
  if ('binary' in entry) return `binary type ${entry.type}${entry.format !== undefined ? ` format ${entry.format}` : ''}`;
  const node = ['executing', 'executed', 'progress'].includes(entry.type) ? `(${String(entry.data.node)})` : '';
  return `${entry.type}${node}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Where `actual` differs in shape from `expected`: kinds of values, object keys, array items. */
export function shapeDiff(expected: unknown, actual: unknown, at = '$', out: string[] = []): string[] {
  const want = kindOf(expected);
  const got = kindOf(actual);
  if (want !== got) {
    out.push(`${at}: recorded ${want}, got ${got}`);
    return out;
  }
  if (want === 'array') {
    // Error lists come in the order of a Python set (it varies by run): pair them by their type.
    const e = byType(expected as unknown[]);
    const a = byType(actual as unknown[]);
    if (e.length === a.length) e.forEach((item, i) => shapeDiff(item, a[i], `${at}[${i}]`, out));
    else if (e.length > 0 && a.length > 0) shapeDiff(e[0], a[0], `${at}[0]`, out);
  } else if (want === 'object') {
    const e = normalizedKeys(expected as Record<string, unknown>);
    const a = normalizedKeys(actual as Record<string, unknown>);
    for (const key of e.keys()) if (!a.has(key)) out.push(`${at}.${key}: missing`);
    for (const key of a.keys()) if (!e.has(key)) out.push(`${at}.${key}: not in the recording`);
    for (const [key, value] of e) if (a.has(key)) shapeDiff(value, a.get(key), `${at}.${key}`, out);
  }
  return out;
}

function byType(items: unknown[]): unknown[] {
  const typed = items.every((i) => typeof i === 'object' && i !== null && typeof (i as { type?: unknown }).type === 'string');
  return typed ? [...items].sort((x, y) => String((x as { type: string }).type).localeCompare((y as { type: string }).type)) : items;
}

function normalizedKeys(obj: Record<string, unknown>): Map<string, unknown> {
  return new Map(Object.entries(obj).map(([k, v]) => [UUID.test(k) ? '<uuid>' : k, v]));
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

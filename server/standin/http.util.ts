/**
 * Response and body helpers for the stand-in's node:http server. Bodies imitate the engine's
 * aiohttp server (empty bodies on most errors, plain-text 404/500), not Studio's `{detail}` shape:
 * clients of the stand-in must see what the real engine sends.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The engine's `--max-upload-size` default (100 MB). */
export const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;

/** A request body larger than the limit (answered with 413). */
export class BodyTooLargeError extends Error {}

/** Send a JSON body (already serialised text, or a value to serialise). */
export function sendJson(res: ServerResponse, status: number, body: unknown, preSerialised = false): void {
  const text = preSerialised ? String(body) : JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** A bodiless answer, like aiohttp's `web.Response(status=…)`. */
export function sendEmpty(res: ServerResponse, status: number): void {
  res.writeHead(status, { 'Content-Length': 0 });
  res.end();
}

/** A plain-text answer (aiohttp's own 404 / 413 / 500 pages). */
export function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** Read the whole body, refusing more than `limit` bytes. */
export async function readBody(req: IncomingMessage, limit = MAX_UPLOAD_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLargeError();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > limit) throw new BodyTooLargeError();
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

/** Parse a JSON body; a body that is not JSON throws (the engine answers 500 then). */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  const body = await readBody(req);
  return JSON.parse(body.toString('utf8')) as unknown;
}

/** JSON text of `[key, value]` pairs that keeps their order (JS objects reorder integer-like keys). */
export function orderedObjectJson(pairs: ReadonlyArray<readonly [string, unknown]>): string {
  return `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`;
}

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** Decoded path parameters, in pattern order. */
  params: string[];
}

export interface Route {
  method: 'GET' | 'POST';
  /** Matched against the path without its optional `/api` prefix. */
  path: RegExp;
  handler(ctx: RouteContext): Promise<void> | void;
}

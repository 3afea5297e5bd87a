/**
 * Body helpers for the stand-in's Express app. Its answers imitate the engine's
 * aiohttp server (empty bodies on most errors, plain-text 404/500), not Studio's `{detail}` shape:
 * clients of the stand-in must see what the real engine sends.
 */
import express, { type Request, type RequestHandler } from 'express';

/** The engine's `--max-upload-size` default (100 MB). */
export const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;

/** aiohttp's answer to a known path asked with another method. */
export const methodNotAllowed: RequestHandler = (_req, res) => void res.status(405).type('text').send('405: Method Not Allowed');

/** Reads any body as text, whatever its Content-Type (aiohttp's `request.json()` does not look); over the limit 413. */
export const textBody = express.text({ type: () => true, limit: MAX_UPLOAD_BYTES });

/** The JSON of a body read by `textBody`; a body that is not JSON throws (the engine answers 500 then). */
export function bodyJson(req: Request): unknown {
  return JSON.parse(typeof req.body === 'string' ? req.body : '') as unknown;
}

/** JSON text of `[key, value]` pairs that keeps their order (JS objects reorder integer-like keys). */
export function orderedObjectJson(pairs: ReadonlyArray<readonly [string, unknown]>): string {
  return `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`;
}

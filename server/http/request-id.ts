/**
 * Gives every request an id (echoed in `X-Request-Id`) so a 500's generic detail can be matched
 * to the logged stack. A random prefix drawn once per boot and a counter: ids stay unique in a
 * log that spans restarts, without a draw from the system's random source per request.
 */
import crypto from 'node:crypto';
import type { Request, RequestHandler } from 'express';

const ids = new WeakMap<Request, string>();

/** Middleware: assign the id. */
export function requestId(): RequestHandler {
  const boot = crypto.randomBytes(4).toString('hex');
  let count = 0;
  return (req, res, next) => {
    const id = `${boot}${(++count).toString(16).padStart(4, '0')}`;
    ids.set(req, id);
    res.setHeader('X-Request-Id', id);
    next();
  };
}

/** The id of a request (or `-` when the middleware did not run). */
export function getRequestId(req: Request): string {
  return ids.get(req) ?? '-';
}

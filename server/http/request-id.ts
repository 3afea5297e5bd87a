/**
 * Gives every request an id (echoed in `X-Request-Id`) so a 500's generic detail can be matched
 * to the logged stack.
 */
import crypto from 'node:crypto';
import type { Request, RequestHandler } from 'express';

const ids = new WeakMap<Request, string>();

/** Middleware: assign the id. */
export function requestId(): RequestHandler {
  return (req, res, next) => {
    const id = crypto.randomBytes(6).toString('hex');
    ids.set(req, id);
    res.setHeader('X-Request-Id', id);
    next();
  };
}

/** The id of a request (or `-` when the middleware did not run). */
export function getRequestId(req: Request): string {
  return ids.get(req) ?? '-';
}

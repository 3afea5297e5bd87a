/**
 * The one place that turns errors into `{"detail": ...}` responses: services raise
 * domain errors with a kind (`domain-error.ts`) and `STATUS_OF_KIND` gives each kind its status.
 */
import { loggableUrl } from './door-credentials.js';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from '../logging.js';
import { DomainError, type ErrorKind } from '../domain-error.js';
import { HttpError } from './errors.js';
import { notFoundPage } from './pages.js';
import type { StorageFaults } from './storage-faults.js';
import { getRequestId } from './request-id.js';

/** 404 for unknown `/api` paths (JSON) and unknown pages (HTML). */
export function notFound(): RequestHandler {
  return (req, res) => {
    if (req.path === '/api' || req.path.startsWith('/api/')) {
      res.status(404).json({ detail: `Not found: ${req.method} ${req.path}` });
    } else {
      res.status(404).type('html').send(notFoundPage(req.path));
    }
  };
}

/** Maps thrown errors to status codes and `{"detail"}` bodies; logs the unexpected ones. */
export function errorMiddleware(logger: Logger, storage?: StorageFaults): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) {
      // Mid-stream failure: nothing sensible can be sent any more; let Express drop the socket.
      logger.warn(`request ${getRequestId(req)} failed after the response started`, err);
      next(err);
      return;
    }
    if (isAbortedUpload(err)) {
      // A client that gave up mid-upload is routine: one line, no stack.
      logger.warn(`request ${getRequestId(req)} ${req.method} ${loggableUrl(req.originalUrl)}: upload aborted by the client`);
      res.status(400).json({ detail: 'Upload aborted before it was complete' });
      return;
    }
    const fault = storage?.answer(err);
    if (fault) {
      // The log keeps the real error (which write, which file); the client gets what to do.
      logger.warn(`request ${getRequestId(req)} ${req.method} ${loggableUrl(req.originalUrl)}: ${fault.detail}`, err);
      res.status(fault.status).json({ detail: fault.detail });
      return;
    }
    const mapped = mapError(err);
    if (mapped) {
      // A refusal that says how long to wait says it in the header too (a quota, a throttle).
      if (mapped.status === 429 && typeof mapped.extra?.retry_after === 'number') res.set('Retry-After', String(mapped.extra.retry_after));
      res.status(mapped.status).json({ ...mapped.extra, detail: mapped.detail });
      return;
    }
    const id = getRequestId(req);
    logger.error(`request ${id} ${req.method} ${loggableUrl(req.originalUrl)} failed`, err);
    res.status(500).json({ detail: `Internal server error (request ${id})` });
  };
}

/**
 * The status of each kind of domain error. An unreachable engine, or one that answers nonsense,
 * is the spec's runner 500; a prompt the engine rejected is the client's 400.
 */
const STATUS_OF_KIND: Record<ErrorKind, number> = {
  invalid: 400,
  rejected: 400,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  out_of_range: 416,
  too_many: 429,
  unreachable: 500,
  upstream: 500,
  broken: 500,
  failed: 500,
  bad_gateway: 502,
  unavailable: 503,
  no_space: 507,
  relayed: 400,
};

/** A kind's status; a relayed refusal keeps the outside service's own 4xx. */
function statusOf(err: DomainError): number {
  const relayed = err.relayedStatus;
  if (err.kind === 'relayed' && relayed !== undefined && relayed >= 400 && relayed < 500) return relayed;
  return STATUS_OF_KIND[err.kind];
}

/** `detail` is always a string; structured extras (engine node errors) travel beside it. */
function mapError(err: unknown): { status: number; detail: string; extra?: Record<string, unknown> } | null {
  if (err instanceof DomainError) return { status: statusOf(err), detail: err.message, extra: err.extra };
  if (err instanceof HttpError) {
    const extra = err.body && typeof err.body === 'object' && !Array.isArray(err.body) ? (err.body as Record<string, unknown>) : undefined;
    return { status: err.status, detail: err.detail, extra };
  }
  if (!err || typeof err !== 'object') return null;
  const e = err as { type?: string; status?: number; expose?: boolean; message?: string; name?: string; code?: string; field?: string };
  // body-parser errors carry a `type`.
  if (e.type === 'entity.parse.failed') return { status: 400, detail: `Malformed JSON body: ${e.message ?? 'parse error'}` };
  if (e.type === 'entity.too.large') return { status: 413, detail: 'Request body too large' };
  if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') return { status: 415, detail: e.message ?? 'Unsupported encoding' };
  if (e.name === 'MulterError') {
    const status = e.code === 'LIMIT_FILE_SIZE' ? 413 : 400;
    return { status, detail: `Upload rejected: ${e.message ?? e.code}${e.field ? ` (field ${e.field})` : ''}` };
  }
  // Any other body the parser could not read (garbage behind `Content-Encoding: gzip`, a body cut
  // short): the client's fault, a 400 without a stack in the log (anyone may send one).
  if (typeof e.status === 'number' && e.status >= 400 && e.status < 500 && e.expose === true) {
    return { status: e.status, detail: `Could not read the request body: ${e.message ?? 'unreadable'}` };
  }
  return null;
}

/** The multipart parser's errors when the client closes the connection mid-body. */
function isAbortedUpload(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { message?: string; code?: string };
  return e.message === 'Unexpected end of form' || e.message === 'Request aborted' || e.code === 'ECONNRESET' || e.code === 'ECONNABORTED';
}

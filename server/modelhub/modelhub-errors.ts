/**
 * How a failed model hub call reaches the user: the hub's 404 stays a 404 (the thing asked for
 * does not exist), a hub that cannot be reached is a 502, one that keeps rate limiting is a 503
 * (try again later), and anything else it answered is a 502 naming what it said.
 */
import { HttpError } from '../http/errors.js';
import { ModelhubError } from '../modelhub-client/modelhub.client.js';

/** `err` as an `HttpError` when it is a model hub failure; other errors pass through unchanged. */
export function hubHttpError(err: unknown): unknown {
  if (!(err instanceof ModelhubError)) return err;
  switch (err.kind) {
    case 'not_found':
      return new HttpError(404, err.message);
    case 'rate_limited':
      return new HttpError(503, err.message);
    default:
      return new HttpError(502, err.message);
  }
}

/** Run a model hub call, turning its failure into the matching `HttpError`. */
export async function viaHub<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw hubHttpError(err);
  }
}

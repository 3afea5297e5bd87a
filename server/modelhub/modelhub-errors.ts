/**
 * How a failed model hub call reaches the user: the hub's 404 stays `not_found` (the thing asked
 * for does not exist), one that keeps rate limiting is `unavailable` (try again later), and a hub
 * that cannot be reached or answered anything else is a `bad_gateway` naming what it said.
 */
import { DomainError } from '../domain-error.js';
import { ModelhubError } from '../modelhub-client/modelhub.client.js';

/** `err` as a `DomainError` when it is a model hub failure; other errors pass through unchanged. */
function hubError(err: unknown): unknown {
  if (!(err instanceof ModelhubError)) return err;
  switch (err.kind) {
    case 'not_found':
      return new DomainError('not_found', err.message);
    case 'rate_limited':
      return new DomainError('unavailable', err.message);
    default:
      return new DomainError('bad_gateway', err.message);
  }
}

/** Run a model hub call, turning its failure into the matching `DomainError`. */
export async function viaHub<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw hubError(err);
  }
}

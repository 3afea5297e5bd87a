/**
 * The errors services raise. A service says what went wrong (`kind`) and in words (`message`);
 * it knows nothing of HTTP. The one error middleware (`http/error-middleware.ts`) turns a kind
 * into a status, so the same failure answers the same status on every route, and a caller that
 * needs to tell failures apart asks for the kind instead of sniffing a status code.
 */

/**
 * - `invalid`: the request itself is wrong (a form parameter, a file the user sent).
 * - `rejected`: an outside service refused what Studio sent (the engine's prompt validation).
 * - `not_found`: the thing asked for does not exist.
 * - `conflict`: it exists already, or is in a state that forbids the change.
 * - `unreachable`: an outside service did not answer (refused, reset, timed out).
 * - `upstream`: an outside service answered something Studio did not expect.
 * - `broken`: Studio's own data for the thing is inconsistent (a workflow's template).
 * - `unavailable`: not now: a service is stopped, parked or busy.
 * - `no_space`: the disk holding the data has not enough free space for the write (507).
 */
export type ErrorKind = 'invalid' | 'rejected' | 'not_found' | 'conflict' | 'unreachable' | 'upstream' | 'broken' | 'unavailable' | 'no_space';

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    /** Structured fields a client may read beside the message (the engine's `node_errors`). */
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** True when `err` is a domain error of `kind`: the way callers tell failures apart. */
export function isKind(err: unknown, kind: ErrorKind): err is DomainError {
  return err instanceof DomainError && err.kind === kind;
}

export function notFound(message: string): DomainError {
  return new DomainError('not_found', message);
}

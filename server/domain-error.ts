/**
 * The errors services raise. A service says what went wrong (`kind`) and in words (`message`);
 * it knows nothing of HTTP. The one error middleware (`http/error-middleware.ts`) turns a kind
 * into a status, so the same failure answers the same status on every route, and a caller that
 * needs to tell failures apart asks for the kind instead of sniffing a status code.
 */

/**
 * - `invalid`: the request itself is wrong (a form parameter, a file the user sent) (400).
 * - `rejected`: an outside service refused what Studio sent (the engine's prompt validation) (400).
 * - `forbidden`: the caller proved no right to the change (a wrong API key) (403).
 * - `not_found`: the thing asked for does not exist (404).
 * - `conflict`: it exists already, or is in a state that forbids the change (409).
 * - `too_large`: what the caller sent is over a size limit Studio sets (a file that unpacks to too
 *   much, a graph with too many nodes); the message names the limit (413).
 * - `out_of_range`: the byte range asked for lies outside the file (416).
 * - `too_many`: the caller failed too often and must wait; `extra.retry_after` says how long (429).
 * - `unreachable`: an outside service did not answer (refused, reset, timed out) (500).
 * - `upstream`: an outside service answered something Studio did not expect (500).
 * - `broken`: Studio's own data for the thing is inconsistent (a workflow's template) (500).
 * - `failed`: a step Studio ran for the request failed (a git command, an install step, starting
 *   a server); the message says which step and why (500).
 * - `bad_gateway`: an outside service Studio fronts for the client (the model hub, the LLM
 *   server) answered an error or nonsense, or could not be reached (502).
 * - `unavailable`: not now: a service is stopped, parked, busy or loading (503).
 * - `no_space`: the disk holding the data has not enough free space for the write (507).
 * - `relayed`: an outside service Studio relays (the LLM server) refused the client's request;
 *   the answer keeps that service's own 4xx (`relayedStatus`), as if the client had asked it.
 */
export type ErrorKind =
  | 'invalid'
  | 'rejected'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'too_large'
  | 'out_of_range'
  | 'too_many'
  | 'unreachable'
  | 'upstream'
  | 'broken'
  | 'failed'
  | 'bad_gateway'
  | 'unavailable'
  | 'no_space'
  | 'relayed';

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    /** Structured fields a client may read beside the message (the engine's `node_errors`). */
    readonly extra?: Record<string, unknown>,
    /** For `relayed` only: the outside service's own 4xx status, which the answer keeps. */
    readonly relayedStatus?: number,
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

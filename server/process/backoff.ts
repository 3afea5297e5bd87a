/**
 * The one backoff formula for everything that retries or reconnects (child restarts, the engine
 * socket, downloads, outside-service calls, the chat bot's poll loop): wait `baseMs` before the
 * first retry, double it for each further one, never more than `maxMs`.
 */

export interface BackoffPolicy {
  /** The wait before the first retry. */
  baseMs: number;
  /** The longest wait. */
  maxMs: number;
}

/** The wait before retry number `retry` (1 = the first retry). */
export function backoffDelay(retry: number, policy: BackoffPolicy): number {
  // The exponent stops at 30 so a long outage doubles towards the cap, not towards Infinity.
  const doublings = Math.min(Math.max(0, retry - 1), 30);
  return Math.min(policy.maxMs, policy.baseMs * 2 ** doublings);
}

/** A `Retry-After` header (seconds, or an HTTP date) as milliseconds from `now`; null when absent or unreadable. */
export function parseRetryAfter(header: string | null, now = Date.now()): number | null {
  if (!header) return null;
  const trimmed = header.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const when = Date.parse(trimmed);
  return Number.isNaN(when) ? null : Math.max(0, when - now);
}

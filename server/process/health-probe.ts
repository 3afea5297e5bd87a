/**
 * HTTP health probing: a child is ready when GET on its health URL answers 2xx, and not with a web page.
 */
import { sleep } from './sleep.js';

/** One probe never waits longer than this, so a wedged socket cannot stall readiness. */
export const PROBE_TIMEOUT_MS = 2000;

export interface ProbeResult {
  ok: boolean;
  /** Why it was not ok: the status line or the network error. */
  error: string | null;
}

/** GET `url` once; ok on a 2xx answer that is not an HTML page, within `timeoutMs`. Never throws. */
export async function probeHealth(url: string, signal?: AbortSignal, timeoutMs = PROBE_TIMEOUT_MS, headers?: Record<string, string>): Promise<ProbeResult> {
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    const res = await fetch(url, { headers, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    // Drain the body so the keep-alive socket goes back to the pool instead of leaking.
    await res.arrayBuffer().catch(() => undefined);
    if (!res.ok) return { ok: false, error: `HTTP ${res.status}` };
    // Health answers are JSON (the engine's system_stats, llama-server's /health). A web page means
    // another server holds the port (a Studio's sign-in page once answered a trial engine's port,
    // taken while the engine was still booting), and must not pass for the child being ready.
    if (/text\/html/i.test(res.headers.get('content-type') ?? '')) return { ok: false, error: 'a web page answered, not the engine: another server holds this port' };
    return { ok: true, error: null };
  } catch (err) {
    if (timeout.aborted) return { ok: false, error: `no answer within ${timeoutMs} ms` };
    return { ok: false, error: describeFetchError(err) };
  }
}

/**
 * Probe every `intervalMs` until healthy (true) or `signal` aborts (false). The caller owns the
 * overall deadline and aborts the signal when it passes.
 */
export async function waitForHealthy(url: string, intervalMs: number, signal: AbortSignal): Promise<boolean> {
  while (!signal.aborted) {
    if ((await probeHealth(url, signal)).ok) return !signal.aborted;
    await sleep(intervalMs, signal);
  }
  return false;
}

function describeFetchError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  // undici hides the useful part (ECONNREFUSED, ENOTFOUND) in `cause`.
  const cause = (err as Error & { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    return code ? `${code}` : cause.message;
  }
  return err.message;
}

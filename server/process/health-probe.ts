/**
 * HTTP health probing: a child is ready when GET on its health URL answers 2xx, and not with a web page.
 */
import { describeRequestError, localRequest } from './local-http.js';
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
  try {
    // node:http, not fetch: probing is part of every start, and fetch would load undici (local-http.ts).
    const res = await localRequest(url, { headers, signal, timeoutMs });
    if (!res.ok) return { ok: false, error: `HTTP ${res.status}` };
    // Health answers are JSON (the engine's system_stats, llama-server's /health). A web page means
    // another server holds the port (a Studio's sign-in page once answered a trial engine's port,
    // taken while the engine was still booting), and must not pass for the child being ready.
    if (/text\/html/i.test(res.header('content-type') ?? '')) return { ok: false, error: 'a web page answered, not the engine: another server holds this port' };
    return { ok: true, error: null };
  } catch (err) {
    return { ok: false, error: describeRequestError(err, timeoutMs) };
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

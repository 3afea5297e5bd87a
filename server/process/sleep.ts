/**
 * The one abortable wait. It resolves (never rejects) when the time is up or the signal aborts, so
 * a loop that stops on abort reads the signal afterwards; code that must stop by throwing follows
 * it with `signal.throwIfAborted()`.
 */

/** Resolve after `ms`, or at once when `signal` aborts (the timer is cleared either way). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

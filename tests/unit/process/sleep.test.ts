/**
 * The one abortable wait, on fake timers: it waits the whole time, and an abort (before or
 * during) ends it at once without a timer left behind.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sleep } from '../../../server/process/sleep.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** Whether `promise` has settled once pending microtasks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await vi.advanceTimersByTimeAsync(0);
  return done;
}

describe('sleep', () => {
  it('resolves after the whole wait, not before', async () => {
    const wait = sleep(1000);
    await vi.advanceTimersByTimeAsync(999);
    expect(await settled(wait)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(wait)).toBe(true);
  });

  it('resolves (never rejects) as soon as the signal aborts, and clears its timer', async () => {
    const controller = new AbortController();
    const wait = sleep(60_000, controller.signal);
    expect(await settled(wait)).toBe(false);
    controller.abort(new Error('stop'));
    await expect(wait).resolves.toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('does not wait at all when the signal already aborted', async () => {
    const wait = sleep(60_000, AbortSignal.abort());
    expect(await settled(wait)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });
});

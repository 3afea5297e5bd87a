/**
 * A Clock for code that backs off or throttles (server/process/clock.ts): virtual time that moves
 * only when a sleep ends, every delay asked for recorded, and sleeps that can be held until the
 * test releases them. A sleep ends after a few real milliseconds (so loops still yield), and the
 * virtual time then reads as if the whole delay had passed. Assertions are on the delays asked for
 * and on virtual times: nothing depends on how fast the machine is.
 */
import type { Clock } from '../../server/process/clock.js';

interface Held {
  ms: number;
  release: () => void;
}

export class TestClock implements Clock {
  /** Every delay asked for, in order. */
  readonly sleeps: number[] = [];
  private virtual = 1_700_000_000_000;
  private readonly held: Held[] = [];

  /** @param holdFrom sleeps of at least this many ms wait for `release()` (Infinity: none). */
  constructor(private readonly holdFrom = Number.POSITIVE_INFINITY) {}

  now = (): number => this.virtual;

  sleep = async (ms: number, signal?: AbortSignal): Promise<void> => {
    this.sleeps.push(ms);
    const start = this.virtual;
    if (signal?.aborted) return;
    await new Promise<void>((resolve) => {
      const held: Held = { ms, release: () => done() };
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        const at = this.held.indexOf(held);
        if (at >= 0) this.held.splice(at, 1);
        resolve();
      };
      const timer = ms >= this.holdFrom ? undefined : setTimeout(done, Math.min(ms, 20));
      if (ms >= this.holdFrom) this.held.push(held);
      signal?.addEventListener('abort', done, { once: true });
    });
    if (!signal?.aborted) this.virtual = Math.max(this.virtual, start + ms);
  };

  /** The delays of the sleeps held right now. */
  heldDelays(): number[] {
    return this.held.map((h) => h.ms);
  }

  /** End the oldest held sleep. */
  release(): void {
    this.held[0]?.release();
  }
}

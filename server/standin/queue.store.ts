/**
 * The prompt queue: a priority queue on `number` (lowest first, like the engine's min-heap), one
 * running item at a time, and the engine's numbering (`front` negates the counter, an explicit
 * `number` is used as-is and leaves the counter alone).
 */
import type { QueueItem } from './standin.types.js';

export class PromptQueue {
  private pending: Array<{ item: QueueItem; seq: number }> = [];
  private running: QueueItem | null = null;
  private counter = 0;
  private seq = 0;

  /** The priority for a new prompt, from the request's `number` / `front`. */
  nextNumber(body: { number?: unknown; front?: unknown }): number {
    if (body.number !== undefined) {
      const n = Number(body.number);
      if (!Number.isFinite(n)) throw new TypeError(`could not convert ${String(body.number)} to float`);
      return n;
    }
    const n = body.front ? -this.counter : this.counter;
    this.counter += 1;
    return n;
  }

  put(item: QueueItem): void {
    this.pending.push({ item, seq: this.seq++ });
    // Stable on equal numbers, so same-priority prompts run in arrival order.
    this.pending.sort((a, b) => a.item[0] - b.item[0] || a.seq - b.seq);
  }

  /** Take the next pending item and mark it running; undefined when idle or already busy. */
  take(): QueueItem | undefined {
    if (this.running) return undefined;
    const next = this.pending.shift();
    if (!next) return undefined;
    this.running = next.item;
    return next.item;
  }

  /** The running item finished (its history is written by the caller). */
  finish(): void {
    this.running = null;
  }

  get current(): QueueItem | null {
    return this.running;
  }

  /** `queue_remaining`: pending plus running, as the engine counts it. */
  remaining(): number {
    return this.pending.length + (this.running ? 1 : 0);
  }

  /** The `GET /queue` body. */
  snapshot(): { queue_running: QueueItem[]; queue_pending: QueueItem[] } {
    return {
      queue_running: this.running ? [this.running] : [],
      queue_pending: this.pending.map((p) => p.item),
    };
  }

  /** Remove pending prompts by id (a running one is untouched). Returns whether any was removed. */
  delete(ids: readonly string[]): boolean {
    const before = this.pending.length;
    this.pending = this.pending.filter((p) => !ids.includes(p.item[1]));
    return this.pending.length !== before;
  }

  /** Drop every pending prompt. */
  clear(): void {
    this.pending = [];
  }
}

/**
 * One delivery to one target, with retries: an attempt that may succeed later (no answer, 408,
 * 429, 5xx) is tried again after the house backoff (5 s, doubling; a receiver's `Retry-After` when
 * it is longer), at most `MAX_ATTEMPTS` times; a refusal (another 4xx) ends it at once. Each
 * attempt's outcome is recorded, so the page shows "trying again (attempt 2 of 5)" while it goes
 * on. Nothing here blocks a job: deliveries run on their own.
 */
import crypto from 'node:crypto';
import type { Delivery } from '../contracts/notifications.contract.js';
import { backoffDelay, type BackoffPolicy } from '../process/backoff.js';
import type { NotifyMessage } from './notify-message.js';
import { sendOnce, type Attempt, type SendTarget } from './notify-senders.js';

export const MAX_ATTEMPTS = 5;
/** 5, 10, 20 and 40 s between the five attempts (at most 10 min after a long Retry-After). */
const RETRY_BACKOFF: BackoffPolicy = { baseMs: 5_000, maxMs: 600_000 };

/** The wait before retry number `retry` (1: the second attempt). */
export function retryDelay(retry: number, retryAfterMs: number | null): number {
  return Math.min(RETRY_BACKOFF.maxMs, Math.max(backoffDelay(retry, RETRY_BACKOFF), retryAfterMs ?? 0));
}

export interface DeliveryDeps {
  fetchImpl?: typeof fetch;
  /** Waits `ms` (tests pass a fast one; Studio's resolves at once when it stops). */
  sleep: (ms: number) => Promise<void>;
  /** Studio is stopping: no further attempt. */
  stopped: () => boolean;
  now: () => number;
  /** Records the delivery's state after each attempt. */
  save: (d: Omit<Delivery, 'at'>) => void;
}

/**
 * Deliver `message`; `first` resolves with the first attempt's record (the Test button shows it),
 * `done` with the last one.
 */
export function deliver(target: SendTarget, message: NotifyMessage, deps: DeliveryDeps): { first: Promise<Omit<Delivery, 'at'>>; done: Promise<Omit<Delivery, 'at'>> } {
  const id = crypto.randomUUID();
  let resolveFirst!: (d: Omit<Delivery, 'at'>) => void;
  const first = new Promise<Omit<Delivery, 'at'>>((resolve) => (resolveFirst = resolve));
  const record = (attempts: number, a: Attempt): Omit<Delivery, 'at'> => {
    const more = !a.ok && a.retry && attempts < MAX_ATTEMPTS;
    const status = a.ok ? 'delivered' : more ? 'retrying' : 'failed';
    const detail = more ? `${a.detail}; trying again (attempt ${attempts + 1} of ${MAX_ATTEMPTS})` : !a.ok && a.retry ? `${a.detail}; gave up after ${attempts} attempts` : a.detail;
    const d = { id, event: message.event, title: message.title, status, attempts, http_status: a.status, detail } as const;
    deps.save(d);
    return d;
  };
  const done = (async () => {
    let last: Omit<Delivery, 'at'> | null = null;
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const outcome = await sendOnce(target, message, deps.fetchImpl, deps.now);
      last = record(attempt, outcome);
      if (attempt === 1) resolveFirst(last);
      if (last.status !== 'retrying') break;
      await deps.sleep(retryDelay(attempt, outcome.retryAfterMs));
      // Studio is stopping: the record says where it stood.
      if (deps.stopped()) break;
    }
    return last!;
  })();
  return { first, done };
}

/**
 * Time as code that waits sees it: the current time and the one abortable sleep. Code with
 * backoff or throttling takes a Clock so a test can record the delays it asks for and decide when
 * they end, instead of measuring wall-clock gaps.
 */
import { sleep } from './sleep.js';

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Resolve after `ms`, or at once when `signal` aborts (never rejects). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = { now: () => Date.now(), sleep };

/**
 * The one backoff formula, with the delays its users rely on: child restarts (1 s doubling to
 * 30 s), the engine socket (0.5 s to 10 s), the chat platform's network retries (0.5, 1, 2, 4 s).
 */
import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../../server/process/backoff.js';

const waits = (count: number, policy: { baseMs: number; maxMs: number }) => Array.from({ length: count }, (_, i) => backoffDelay(i + 1, policy));

describe('backoffDelay', () => {
  it('waits the base first, doubles for each further retry, and stops at the cap', () => {
    expect(waits(7, { baseMs: 1000, maxMs: 30_000 })).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
    expect(waits(6, { baseMs: 500, maxMs: 10_000 })).toEqual([500, 1000, 2000, 4000, 8000, 10_000]);
    expect(waits(4, { baseMs: 500, maxMs: 4000 })).toEqual([500, 1000, 2000, 4000]);
  });

  it('stays at the cap through a long outage (no Infinity or NaN after many retries)', () => {
    expect(backoffDelay(10_000, { baseMs: 500, maxMs: 10_000 })).toBe(10_000);
    expect(backoffDelay(1e9, { baseMs: 1, maxMs: Number.MAX_SAFE_INTEGER })).toBe(2 ** 30);
  });

  it('treats a retry number below 1 as the first retry', () => {
    expect(backoffDelay(0, { baseMs: 250, maxMs: 1000 })).toBe(250);
  });
});

/**
 * One limiter for every failed key check (login, `X-API-Key` on any route, the WebSocket
 * handshake): more than `perAddress` wrong keys from one address within the window, or more
 * than `global` from everybody together (a botnet, or one host cycling source addresses), and
 * key checks wait with 429 until the window has passed. The global ceiling holds back only
 * addresses that failed themselves within the window: a flood of wrong keys from elsewhere must
 * never lock out the owner, whose address has not failed. A request that presents no key is not
 * a failed check. The desktop window and the chat bot are Studio's own clients and never meet
 * this limiter (a minted session, an in-process credential).
 */
export interface LimiterVerdict {
  allowed: boolean;
  /** Seconds until key checks may run again (when not allowed). */
  retryAfterS: number;
  /** True the first time a burst is blocked (one warning event per burst, not hundreds). */
  newlyBlocked: boolean;
  /** Which ceiling was hit. */
  scope?: 'address' | 'global';
}

export interface KeyLimiterOptions {
  perAddress?: number;
  global?: number;
  windowMs?: number;
  now?: () => number;
}

const GLOBAL_KEY = '*';

export class KeyLimiter {
  private readonly failures = new Map<string, number[]>();
  private readonly warned = new Map<string, number>();
  private readonly perAddress: number;
  private readonly global: number;
  private readonly windowMs: number;
  private readonly now: () => number;

  constructor(options: KeyLimiterOptions = {}) {
    this.perAddress = options.perAddress ?? 10;
    this.global = options.global ?? 100;
    this.windowMs = options.windowMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  /** Ask before checking a key. */
  check(address: string): LimiterVerdict {
    const now = this.now();
    // Never refuse a client that has not failed itself.
    if (this.recent(address, now).length === 0) return { allowed: true, retryAfterS: 0, newlyBlocked: false };
    for (const [key, max, scope] of [[address, this.perAddress, 'address'], [GLOBAL_KEY, this.global, 'global']] as const) {
      const recent = this.recent(key, now);
      if (recent.length < max) continue;
      const retryAfterS = Math.max(1, Math.ceil((recent[recent.length - max]! + this.windowMs - now) / 1000));
      const warnedAt = this.warned.get(key);
      const newlyBlocked = warnedAt === undefined || now - warnedAt > this.windowMs;
      if (newlyBlocked) this.warned.set(key, now);
      return { allowed: false, retryAfterS, newlyBlocked, scope };
    }
    return { allowed: true, retryAfterS: 0, newlyBlocked: false };
  }

  /** Record a wrong key. */
  fail(address: string): void {
    const now = this.now();
    for (const key of [address, GLOBAL_KEY]) {
      const recent = this.recent(key, now);
      recent.push(now);
      this.failures.set(key, recent);
    }
    if (this.failures.size > 10_000) this.sweep(now);
  }

  /** A right key clears the address's record (not the global one: others may still be guessing). */
  succeed(address: string): void {
    this.failures.delete(address);
    this.warned.delete(address);
  }

  private recent(key: string, now: number): number[] {
    return (this.failures.get(key) ?? []).filter((t) => now - t < this.windowMs);
  }

  private sweep(now: number): void {
    for (const [key, times] of this.failures) {
      if (times.every((t) => now - t >= this.windowMs)) this.failures.delete(key);
    }
  }
}

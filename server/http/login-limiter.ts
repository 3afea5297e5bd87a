/**
 * Slows password guessing: more than `maxFailures` wrong keys from one address within a
 * minute and further login attempts from it get 429 until the window has passed.
 */
export interface LimiterVerdict {
  allowed: boolean;
  /** Seconds until the address may try again (when not allowed). */
  retryAfterS: number;
  /** True the first time an address is blocked in a window (emit one warning, not hundreds). */
  newlyBlocked: boolean;
}

export class LoginLimiter {
  private readonly failures = new Map<string, number[]>();
  private readonly warned = new Map<string, number>();

  constructor(
    private readonly maxFailures = 10,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Ask before checking a key. */
  check(address: string): LimiterVerdict {
    const now = this.now();
    const recent = this.recent(address, now);
    if (recent.length < this.maxFailures) return { allowed: true, retryAfterS: 0, newlyBlocked: false };
    const retryAfterS = Math.max(1, Math.ceil((recent[0]! + this.windowMs - now) / 1000));
    const warnedAt = this.warned.get(address);
    const newlyBlocked = warnedAt === undefined || now - warnedAt > this.windowMs;
    if (newlyBlocked) this.warned.set(address, now);
    return { allowed: false, retryAfterS, newlyBlocked };
  }

  /** Record a wrong key. */
  fail(address: string): void {
    const now = this.now();
    const recent = this.recent(address, now);
    recent.push(now);
    this.failures.set(address, recent);
    if (this.failures.size > 10_000) this.sweep(now);
  }

  /** A right key clears the address's record. */
  succeed(address: string): void {
    this.failures.delete(address);
    this.warned.delete(address);
  }

  private recent(address: string, now: number): number[] {
    return (this.failures.get(address) ?? []).filter((t) => now - t < this.windowMs);
  }

  private sweep(now: number): void {
    for (const [address, times] of this.failures) {
      if (times.every((t) => now - t >= this.windowMs)) this.failures.delete(address);
    }
  }
}

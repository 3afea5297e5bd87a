/**
 * One limiter for every failed key check (login, `X-API-Key` on any route, the WebSocket
 * handshake): more than `perAddress` wrong keys from one address within the window, or more
 * than `global` from everybody together (a botnet, or one host cycling source addresses), and
 * key checks wait with 429 until the window has passed. The global ceiling holds back only
 * addresses that failed themselves within the window: a flood of wrong keys from elsewhere must
 * never lock out the owner, whose address has not failed. A request that presents no key is not
 * a failed check. The desktop window and the chat bot are Studio's own clients and never meet
 * this limiter (a minted session, an in-process credential).
 *
 * A sign-in by name and password also names its `subject` (the person tried): more than
 * `perAddress` wrong passwords for one person within the window, from wherever, hold that
 * person's sign-ins back too, so guessing one password from many addresses gains nothing.
 */
export interface LimiterVerdict {
  allowed: boolean;
  /** Seconds until key checks may run again (when not allowed). */
  retryAfterS: number;
  /** True the first time a burst is blocked (one warning event per burst, not hundreds). */
  newlyBlocked: boolean;
  /** Which ceiling was hit. */
  scope?: 'address' | 'global' | 'person';
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

  /** Ask before checking a key (or a person's password: `subject` names the person). */
  check(address: string, subject?: string): LimiterVerdict {
    const now = this.now();
    const ceilings: Array<readonly [string, number, 'address' | 'global' | 'person']> = [];
    if (subject !== undefined) ceilings.push([subjectKey(subject), this.perAddress, 'person']);
    // Never refuse a client that has not failed itself on the address and global ceilings.
    if (this.recent(address, now).length > 0) ceilings.push([address, this.perAddress, 'address'], [GLOBAL_KEY, this.global, 'global']);
    for (const [key, max, scope] of ceilings) {
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

  /** Record a wrong key (or a wrong password for `subject`). */
  fail(address: string, subject?: string): void {
    const now = this.now();
    for (const key of subject === undefined ? [address, GLOBAL_KEY] : [address, GLOBAL_KEY, subjectKey(subject)]) {
      const recent = this.recent(key, now);
      recent.push(now);
      this.failures.set(key, recent);
    }
    if (this.failures.size > 10_000) this.sweep(now);
  }

  /** A right key clears the address's record (not the global one: others may still be guessing). */
  succeed(address: string, subject?: string): void {
    for (const key of subject === undefined ? [address] : [address, subjectKey(subject)]) {
      this.failures.delete(key);
      this.warned.delete(key);
    }
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

/** Person keys live beside addresses in one map: a prefix no address can have keeps them apart. */
function subjectKey(subject: string): string {
  return `person:${subject}`;
}

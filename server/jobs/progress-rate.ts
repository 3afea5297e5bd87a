/**
 * Rolling step rate: steps per second over the last few seconds of `progress` messages. A short
 * window follows a sampler that speeds up once its model is loaded, and a cumulative counter
 * survives node changes (a second sampler restarts `value` at 1).
 */

export class RollingRate {
  private readonly times: number[] = [];
  private readonly counts: number[] = [];
  private total = 0;

  constructor(private readonly windowMs = 5_000) {}

  /** Record `steps` more steps done at time `at` (ms). */
  add(at: number, steps: number): void {
    this.total += steps;
    this.times.push(at);
    this.counts.push(this.total);
    // Keep two samples at least, so a stall longer than the window still yields the last rate.
    while (this.times.length > 2 && this.times[1]! <= at - this.windowMs) {
      this.times.shift();
      this.counts.shift();
    }
  }

  /** Steps per second over the window, or null with fewer than two samples. */
  rate(): number | null {
    const n = this.times.length;
    if (n < 2) return null;
    const dt = this.times[n - 1]! - this.times[0]!;
    const steps = this.counts[n - 1]! - this.counts[0]!;
    if (dt <= 0 || steps <= 0) return null;
    return (steps * 1000) / dt;
  }
}

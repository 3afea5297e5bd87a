/**
 * Rolling download speed: samples of (time, cumulative bytes) over a short window, speed =
 * bytes gained / time elapsed across the window. A window (not the last tick alone) keeps the
 * number readable while the network delivers in bursts.
 */

/** A rolling average of bytes per second over `windowMs`. */
export class SpeedMeter {
  private readonly samples: Array<{ t: number; bytes: number }> = [];

  constructor(
    private readonly windowMs = 5000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Record the cumulative byte count received so far. */
  sample(bytes: number): void {
    const t = this.now();
    this.samples.push({ t, bytes });
    // Keep one sample older than the window so the average spans the whole window.
    while (this.samples.length > 2 && this.samples[1]!.t <= t - this.windowMs) this.samples.shift();
  }

  /** Bytes per second across the window; 0 until two samples exist. */
  speed(): number {
    const first = this.samples[0];
    const last = this.samples[this.samples.length - 1];
    if (!first || !last || last.t <= first.t) return 0;
    return Math.max(0, ((last.bytes - first.bytes) * 1000) / (last.t - first.t));
  }
}

/**
 * The low-space warning: one `disk.low_space` event when free space on a volume holding Studio's
 * data falls under the threshold, checked every few minutes; it rearms once space is back, so a
 * box that stays nearly full is not warned about every check.
 */
import type { EventBus } from '../events/event-bus.js';
import { formatSize } from '../free-space.js';

const LOW_SPACE_CHECK_MS = 5 * 60_000;

export class LowSpaceWatch {
  private warned = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly deps: { events: EventBus; thresholdBytes: number; lowestFree: () => Promise<number>; intervalMs?: number },
  ) {}

  /** Check now, then every interval. */
  start(): void {
    void this.check();
    this.timer = setInterval(() => void this.check(), this.deps.intervalMs ?? LOW_SPACE_CHECK_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Compare free space with the threshold; warn once per fall under it. */
  async check(): Promise<void> {
    const free = await this.deps.lowestFree().catch(() => Number.POSITIVE_INFINITY);
    const low = free < this.deps.thresholdBytes;
    if (low && !this.warned) {
      this.deps.events.emit('disk.low_space', 'warning', `Only ${formatSize(free)} free for Studio's data (warning under ${formatSize(this.deps.thresholdBytes)})`, {
        free_bytes: free,
        threshold_bytes: this.deps.thresholdBytes,
      });
    }
    this.warned = low;
  }
}

/**
 * Restarting Studio (`POST /api/admin/system/restart`, also after an update): the write-ahead log
 * is flushed into the database file first, then the shell that runs Studio replaces it (headless:
 * a new process and an exit; desktop: Electron relaunches). Clients reconnect by themselves.
 */
import type { EventBus } from '../events/event-bus.js';
import type { Logger } from '../logging.js';

export interface RestartDeps {
  /** Flush the WAL (`PRAGMA wal_checkpoint(TRUNCATE)`). */
  checkpoint: () => void;
  /** Replace the running Studio; null when this Studio was started without a way to do that. */
  relaunch: (() => void | Promise<void>) | null;
  events: EventBus;
  logger: Logger;
}

/** Runs one restart at most. */
export class RestartService {
  private pending = false;

  constructor(private readonly deps: RestartDeps) {}

  /** Whether this Studio can replace itself. */
  get supported(): boolean {
    return this.deps.relaunch !== null;
  }

  /** `schedule` when this Studio can replace itself; false (and nothing happens) when it cannot. */
  trySchedule(delayMs: number, reason: string): boolean {
    if (!this.supported) return false;
    this.schedule(delayMs, reason);
    return true;
  }

  /** Restart after `delayMs` (once; later calls are ignored while one is pending). */
  schedule(delayMs: number, reason: string): void {
    if (this.pending) return;
    this.pending = true;
    this.deps.events.emit('system.restart', 'info', `Studio restarts in ${delayMs} ms: ${reason}`, { delay_ms: delayMs, reason });
    setTimeout(() => void this.run(), delayMs);
  }

  private async run(): Promise<void> {
    try {
      this.deps.checkpoint();
    } catch (err) {
      this.deps.logger.warn('WAL checkpoint before restart failed', err);
    }
    if (!this.deps.relaunch) {
      this.deps.logger.warn('restart requested, but this Studio was started without a relaunch: restart it by hand');
      this.pending = false;
      return;
    }
    try {
      await this.deps.relaunch();
    } catch (err) {
      this.pending = false;
      this.deps.logger.error('restart failed; Studio keeps running', err);
    }
  }
}

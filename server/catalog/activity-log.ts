/**
 * The download activity log (spec: `GET /api/admin/activity-log`): short lines about the
 * download lifecycle for the models page. It lives in memory, newest last, bounded; the event
 * log is the durable record, this is the page's running commentary.
 */
import { clockTime, romeIso } from '../time.js';
import type { ActivityLine } from '../contracts/catalog.contract.js';

/** A bounded, in-memory list of activity lines. */
export class ActivityLog {
  private readonly lines: ActivityLine[] = [];

  constructor(
    private readonly capacity = 500,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Append a line (the oldest goes once the log is full). */
  add(level: ActivityLine['level'], message: string): void {
    const now = this.now();
    this.lines.push({ time: clockTime(now), at: romeIso(now), message, level });
    if (this.lines.length > this.capacity) this.lines.splice(0, this.lines.length - this.capacity);
  }

  info(message: string): void {
    this.add('info', message);
  }

  ok(message: string): void {
    this.add('ok', message);
  }

  error(message: string): void {
    this.add('error', message);
  }

  /** Every line, oldest first (a copy). */
  list(): ActivityLine[] {
    return [...this.lines];
  }

  clear(): void {
    this.lines.length = 0;
  }
}

/**
 * A batch's time window (`{from, to}`, HH:MM in the box's local time, the process's zone): its jobs
 * start only inside it. A window whose end is before its start runs over midnight (`22:00`–`06:00`);
 * `from` equal to `to` is the whole day. A job already on an engine at the end finishes there.
 */
import type { BatchWindow } from '../contracts/batches.contract.js';

function minutesOf(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number);
  return h! * 60 + m!;
}

/** Minutes since the box's local midnight at `ms` (the process's zone, `TZ`). */
function localMinute(ms: number): number {
  const at = new Date(ms);
  return at.getHours() * 60 + at.getMinutes();
}

/** Whether `ms` falls inside the window (no window: always). */
export function inWindow(window: BatchWindow | null, ms: number): boolean {
  if (!window) return true;
  const from = minutesOf(window.from);
  const to = minutesOf(window.to);
  if (from === to) return true;
  const now = localMinute(ms);
  return from < to ? now >= from && now < to : now >= from || now < to;
}

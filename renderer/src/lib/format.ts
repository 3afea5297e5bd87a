/**
 * Numbers as people read them: sizes (one unit for every size on screen: powers of 1024), speeds,
 * durations, times (always in the browser's zone).
 */
import { parseServerTime } from '../../../server/contracts/wire-time.js';

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];

/** `1536` → `1.5 KB` (powers of 1024, the way file managers show model files). */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes) || bytes < 0) return '—';
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = unit === 0 || value >= 100 ? 0 : value >= 10 ? 1 : 2;
  return `${value.toFixed(digits)} ${UNITS[unit]}`;
}

/** Bytes per second. */
export function formatSpeed(bytesPerSecond: number | null | undefined): string {
  if (!bytesPerSecond || bytesPerSecond <= 0) return '—';
  return `${formatBytes(bytesPerSecond)}/s`;
}

/** Seconds as `42 s`, `3 min 05 s`, `1 h 02 min`. */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return '—';
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

/** Seconds left of a download: remaining bytes at the current speed; null when unknown. */
export function etaSeconds(done: number, total: number, speed: number): number | null {
  if (!(total > 0) || !(speed > 0) || done >= total) return null;
  return (total - done) / speed;
}

/** The catalog's `size_gb` (decimal gigabytes, as the hubs list them) in bytes; null when unknown. */
function catalogBytes(sizeGb: number | null | undefined): number | null {
  return sizeGb === undefined || sizeGb === null || !Number.isFinite(sizeGb) || sizeGb < 0 ? null : Math.round(sizeGb * 1e9);
}

/** A catalog size in the same unit as every other size on screen (`formatBytes`). */
export function formatGb(sizeGb: number | null | undefined): string {
  return formatBytes(catalogBytes(sizeGb));
}

/**
 * The one rule for every time on screen: the browser's zone, the time of day alone when it is
 * today, with the day (and the year when it is not this one) otherwise: `14:03`, `22 Nov, 14:03`,
 * `3 Dec 2025, 09:10`. Seconds when asked (logs, a job's status history).
 */
export function formatWhen(date: Date, options: { seconds?: boolean; now?: Date } = {}): string {
  const now = options.now ?? new Date();
  const time: Intl.DateTimeFormatOptions = { hour: '2-digit', minute: '2-digit', ...(options.seconds ? { second: '2-digit' } : {}) };
  if (date.toDateString() === now.toDateString()) return date.toLocaleTimeString(undefined, time);
  const day: Intl.DateTimeFormatOptions = { day: 'numeric', month: 'short', ...(date.getFullYear() === now.getFullYear() ? {} : { year: 'numeric' }) };
  return date.toLocaleString(undefined, { ...day, ...time });
}

/**
 * A server time (a job's wall-clock stamp in the server's `zone`, a catalog's `YYYY-MM-DD HH:MM`
 * in that zone, or ISO with an offset) by the rule of `formatWhen`.
 */
export function formatStamp(stamp: string | null | undefined, zone: string | null = null, seconds = false): string {
  if (!stamp) return '—';
  const date = parseServerTime(stamp, zone);
  if (!date) return stamp;
  return formatWhen(date, { seconds });
}

/** A browser-zone day `YYYY-MM-DD` (a date input's value) as the history route's `from`/`to` instants (UTC ISO); null when not a day. */
export function dayRange(day: string): { from: string; to: string } | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return null;
  const start = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  const end = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + 1);
  return { from: start.toISOString(), to: end.toISOString() };
}

/** `3 images`, `1 video`: a count with its noun, plural when it should be. */
export function plural(count: number, noun: string, many = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : many}`;
}

/** An event's ISO timestamp by the rule of `formatWhen`, with seconds. */
export function formatClock(iso: string): string {
  return formatStamp(iso, null, true);
}

/** A clamped percent (0..100) with at most one decimal. */
export function formatPercent(percent: number | null | undefined): string {
  const value = Math.max(0, Math.min(100, percent ?? 0));
  return `${value >= 10 || Number.isInteger(value) ? Math.floor(value) : value.toFixed(1)} %`;
}

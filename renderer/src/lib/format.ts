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
 * A server time (a job's wall-clock stamp in the server's `zone`, or ISO with an offset) in the
 * browser's zone, as `22 Nov, 14:03`.
 */
export function formatStamp(stamp: string | null | undefined, zone: string | null = null): string {
  if (!stamp) return '—';
  const date = parseServerTime(stamp, zone);
  if (!date) return stamp;
  return date.toLocaleString(undefined, { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
}

/** `3 images`, `1 video`: a count with its noun, plural when it should be. */
export function plural(count: number, noun: string, many = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : many}`;
}

/** An event's ISO timestamp as the time of day with seconds. */
export function formatClock(iso: string): string {
  const date = parseServerTime(iso, null);
  if (!date) return iso;
  return date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/** A clamped percent (0..100) with at most one decimal. */
export function formatPercent(percent: number | null | undefined): string {
  const value = Math.max(0, Math.min(100, percent ?? 0));
  return `${value >= 10 || Number.isInteger(value) ? Math.floor(value) : value.toFixed(1)} %`;
}

/**
 * Time formats of the spec: events carry ISO 8601 in Europe/Rome time with its offset; job
 * records carry local wall-clock `YYYY-MM-DDTHH:MM:SS` (also Rome time, so both agree). Reading
 * them back is shared with the renderer (`contracts/wire-time.ts`).
 */
import { wallClockInstantAt, zoneOffsetMinutes } from './contracts/wire-time.js';

export const STUDIO_TIME_ZONE = 'Europe/Rome';

/** Minutes Rome is ahead of UTC at `utcMs` (ICU's zone data). */
export function romeOffsetMinutes(utcMs: number): number {
  return zoneOffsetMinutes(STUDIO_TIME_ZONE, utcMs);
}

interface RomeParts {
  year: string;
  month: string;
  day: string;
  hour: string;
  minute: string;
  second: string;
  /** Minutes ahead of UTC. */
  offset: number;
}

/** Year, month, day, hour, minute, second (zero-padded strings) of `date` in Rome time. */
function romeParts(date: Date): RomeParts {
  if (Number.isNaN(date.getTime())) throw new RangeError('Invalid time value');
  const offset = romeOffsetMinutes(date.getTime());
  const wall = new Date(date.getTime() + offset * 60_000);
  return {
    year: String(wall.getUTCFullYear()).padStart(4, '0'),
    month: pad(wall.getUTCMonth() + 1),
    day: pad(wall.getUTCDate()),
    hour: pad(wall.getUTCHours()),
    minute: pad(wall.getUTCMinutes()),
    second: pad(wall.getUTCSeconds()),
    offset,
  };
}

/** `2026-11-22T02:22:15.123+01:00`: ISO 8601 in Rome time with the offset in force then. */
export function romeIso(date: Date = new Date()): string {
  const p = romeParts(date);
  const sign = p.offset >= 0 ? '+' : '-';
  const abs = Math.abs(p.offset);
  const offset = `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
  const ms = String(date.getTime() % 1000).padStart(3, '0');
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}.${ms}${offset}`;
}

/** `2026-11-22T02:22:15`: the job record's local time. */
export function localStamp(date: Date = new Date()): string {
  const p = romeParts(date);
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}`;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** The instant a `localStamp` names (Rome wall-clock back to epoch ms), or null when malformed. */
export function parseLocalStamp(stamp: string | null | undefined): number | null {
  return stamp ? wallClockInstantAt(stamp, romeOffsetMinutes) : null;
}

/** `2026-11-22 14:05`: the minute-precision stamp of catalogs and workflow indexes. */
export function minuteStamp(date: Date = new Date()): string {
  const p = romeParts(date);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`;
}

/**
 * The box's own wall clock (the process's zone, `TZ`), for what a person reads beside the UI's
 * times: file and folder names (uploads, job folders, ZIPs, snapshots) and log lines. The UI shows
 * every instant in the viewer's zone, which on the box itself is this one; Rome's fixed zone
 * (above) stays for the wire's records, which carry or imply their zone and are converted.
 */
function boxClock(date: Date): { date: string; time: string } {
  if (Number.isNaN(date.getTime())) throw new RangeError('Invalid time value');
  return {
    date: `${String(date.getFullYear()).padStart(4, '0')}${pad(date.getMonth() + 1)}${pad(date.getDate())}`,
    time: `${pad(date.getHours())}${pad(date.getMinutes())}${pad(date.getSeconds())}`,
  };
}

/** `20261122-142233` in the box's local time (`sep` between date and time): names that sort by time. */
export function fileStamp(date: Date = new Date(), sep = '-'): string {
  const c = boxClock(date);
  return `${c.date}${sep}${c.time}`;
}

/** `14:22:33` in the box's local time: a log line's time. */
export function clockTime(date: Date = new Date()): string {
  const t = boxClock(date).time;
  return `${t.slice(0, 2)}:${t.slice(2, 4)}:${t.slice(4)}`;
}

/**
 * Time formats of the spec: events carry ISO 8601 in Europe/Rome time with its offset; job
 * records carry local wall-clock `YYYY-MM-DDTHH:MM:SS` (also Rome time, so both agree). Reading
 * them back is shared with the renderer (`contracts/wire-time.ts`).
 *
 * Rome's offset comes from the EU's summer-time rule for the years it has held (see
 * `romeOffsetMinutes`), not from `Intl`: the first `Intl.DateTimeFormat` with a time zone loads
 * ICU's zone data, ~20 ms of a ~200 ms start (measured for issue 29), and the start stamps its
 * first event before it answers. A unit test checks the rule against `Intl` hour by hour, so new
 * zone data that changes Rome's clock fails the suite instead of shifting times silently.
 */
import { wallClockInstantAt, zoneOffsetMinutes } from './contracts/wire-time.js';

export const STUDIO_TIME_ZONE = 'Europe/Rome';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** The years Italy has followed the EU rule (from 1996) and the rule is checked for (the unit test). */
const RULE_YEARS = { first: 1996, last: 2100 };

/** The UTC midnight that begins the last Sunday of `month` (0-based) in `year`. */
function lastSunday(year: number, month: number): number {
  const lastDay = Date.UTC(year, month + 1, 0);
  return lastDay - new Date(lastDay).getUTCDay() * DAY_MS;
}

/**
 * Minutes Rome is ahead of UTC at `utcMs`: CEST (+120) from 01:00 UTC on the last Sunday of March
 * to 01:00 UTC on the last Sunday of October, CET (+60) otherwise. Outside the rule's years, ICU.
 */
export function romeOffsetMinutes(utcMs: number): number {
  const year = new Date(utcMs).getUTCFullYear();
  if (year < RULE_YEARS.first || year > RULE_YEARS.last) return zoneOffsetMinutes(STUDIO_TIME_ZONE, utcMs);
  const summerFrom = lastSunday(year, 2) + HOUR_MS;
  const summerTo = lastSunday(year, 9) + HOUR_MS;
  return utcMs >= summerFrom && utcMs < summerTo ? 120 : 60;
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

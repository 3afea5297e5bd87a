/**
 * Time formats of the spec: events carry ISO 8601 in Europe/Rome time with its offset; job
 * records carry local wall-clock `YYYY-MM-DDTHH:MM:SS` (also Rome time, so both agree). Reading
 * them back is shared with the renderer (`contracts/wire-time.ts`).
 */
import { wallClockInstant, zoneOffsetMinutes } from './contracts/wire-time.js';

export const STUDIO_TIME_ZONE = 'Europe/Rome';

const partsFormat = new Intl.DateTimeFormat('en-CA', {
  timeZone: STUDIO_TIME_ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

/** Year, month, day, hour, minute, second (zero-padded strings) of `date` in Rome time. */
function romeParts(date: Date): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of partsFormat.formatToParts(date)) out[part.type] = part.value;
  return out;
}

/** `2026-11-22T02:22:15.123+01:00`: ISO 8601 in Rome time with the offset in force then. */
export function romeIso(date: Date = new Date()): string {
  const p = romeParts(date);
  const offsetMin = zoneOffsetMinutes(STUDIO_TIME_ZONE, date.getTime());
  const sign = offsetMin >= 0 ? '+' : '-';
  const abs = Math.abs(offsetMin);
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
  return stamp ? wallClockInstant(stamp, STUDIO_TIME_ZONE) : null;
}

/** `2026-11-22 14:05`: the minute-precision stamp of catalogs and workflow indexes. */
export function minuteStamp(date: Date = new Date()): string {
  const p = romeParts(date);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`;
}

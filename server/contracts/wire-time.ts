/**
 * Reading the wire's two time formats back to instants, shared by the server and the renderer.
 * Job records carry the server's wall-clock time without an offset (`YYYY-MM-DDTHH:MM:SS` in the
 * zone the `hello` frame names); events carry ISO 8601 with an offset. Both become real instants
 * here, so every page shows the same job at the same time. Pure `Intl` code: Node and browsers.
 */

const WALL_CLOCK = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$/;

/**
 * One formatter per zone, made on first use and kept: making one costs ~100 µs (and the first in a
 * process ~20 ms, while ICU loads its zone data), reading an instant with it a few µs. A history
 * page reads two offsets per row.
 */
const zoneFormats = new Map<string, Intl.DateTimeFormat>();

function zoneFormat(zone: string): Intl.DateTimeFormat {
  let format = zoneFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    zoneFormats.set(zone, format);
  }
  return format;
}

/** Minutes `zone` is ahead of UTC at the instant `utcMs`. */
export function zoneOffsetMinutes(zone: string, utcMs: number): number {
  const parts: Record<string, number> = {};
  for (const part of zoneFormat(zone).formatToParts(new Date(utcMs))) if (part.type !== 'literal') parts[part.type] = Number(part.value);
  const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
  return Math.round((wall - Math.floor(utcMs / 1000) * 1000) / 60_000);
}

/**
 * A server stamp as a Date: wall-clock stamps are read in `zone` (the server's), stamps with an
 * offset or `Z` as they are. Null for anything unreadable.
 */
export function parseServerTime(stamp: string | null | undefined, zone: string | null): Date | null {
  if (!stamp) return null;
  if (zone) {
    const instant = wallClockInstant(stamp, zone);
    if (instant !== null) return new Date(instant);
  }
  const date = new Date(stamp);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** The epoch ms a wall-clock stamp (`YYYY-MM-DDTHH:MM[:SS]`) names in `zone`, or null when it is not one. */
function wallClockInstant(stamp: string, zone: string): number | null {
  return wallClockInstantAt(stamp, (utcMs) => zoneOffsetMinutes(zone, utcMs));
}

/** `wallClockInstant` for a zone given by its offset in minutes at each instant. */
export function wallClockInstantAt(stamp: string, offsetMinutes: (utcMs: number) => number): number | null {
  const wall = WALL_CLOCK.exec(stamp.trim());
  if (!wall) return null;
  const [, y, mo, d, h, mi, s] = wall;
  const asUtc = Date.UTC(+y!, +mo! - 1, +d!, +h!, +mi!, +(s ?? 0));
  // Two passes: the offset at the guessed instant can differ across a DST change.
  const guess = asUtc - offsetMinutes(asUtc) * 60_000;
  return asUtc - offsetMinutes(guess) * 60_000;
}

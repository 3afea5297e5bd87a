import { describe, expect, it } from 'vitest';
import { zoneOffsetMinutes } from '../../../server/contracts/wire-time.js';
import { localStamp, minuteStamp, parseLocalStamp, romeIso, romeOffsetMinutes } from '../../../server/time.js';

describe('Rome time', () => {
  it('uses +01:00 in winter and +02:00 in summer, naming the same instant', () => {
    const winter = new Date('2026-01-15T12:00:00.250Z');
    expect(romeIso(winter)).toBe('2026-01-15T13:00:00.250+01:00');
    const summer = new Date('2026-07-15T12:00:00.000Z');
    expect(romeIso(summer)).toBe('2026-07-15T14:00:00.000+02:00');
    expect(new Date(romeIso(summer)).getTime()).toBe(summer.getTime());
  });

  it('formats job times as local YYYY-MM-DDTHH:MM:SS', () => {
    expect(localStamp(new Date('2026-11-22T23:30:05Z'))).toBe('2026-11-23T00:30:05');
  });

  it('reads a local stamp back to the instant it names, in winter and summer', () => {
    for (const iso of ['2026-01-15T12:00:07Z', '2026-07-15T22:30:00Z']) {
      const ms = Date.parse(iso);
      expect(parseLocalStamp(localStamp(new Date(ms)))).toBe(ms);
    }
    expect(parseLocalStamp('garbage')).toBeNull();
  });
});

describe("Rome's offset by the EU rule (no ICU at start)", () => {
  const icu = (ms: number) => zoneOffsetMinutes('Europe/Rome', ms);
  const HOUR = 3_600_000;

  it('agrees with Intl twice a day from 1996 to 2100, and hour by hour around every change', () => {
    const mismatches: string[] = [];
    const check = (ms: number) => {
      if (romeOffsetMinutes(ms) !== icu(ms)) mismatches.push(`${new Date(ms).toISOString()}: rule ${romeOffsetMinutes(ms)}, Intl ${icu(ms)}`);
    };
    for (let ms = Date.UTC(1996, 0, 1); ms < Date.UTC(2101, 0, 1); ms += 12 * HOUR) check(ms);
    for (let year = 1996; year <= 2100; year++) {
      for (const month of [2, 9]) {
        for (let ms = Date.UTC(year, month, 24); ms < Date.UTC(year, month + 1, 1, 3); ms += HOUR / 2) check(ms);
      }
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
  });

  it('changes at 01:00 UTC to the millisecond', () => {
    const spring = Date.UTC(2026, 2, 29, 1);
    expect([romeOffsetMinutes(spring - 1), romeOffsetMinutes(spring)]).toEqual([60, 120]);
    const autumn = Date.UTC(2026, 9, 25, 1);
    expect([romeOffsetMinutes(autumn - 1), romeOffsetMinutes(autumn)]).toEqual([120, 60]);
  });

  it('asks Intl outside the years of the rule', () => {
    // 1980: Italy's summer time began on 6 April, not the last Sunday of March.
    const ms = Date.UTC(1980, 3, 1, 12);
    expect(romeOffsetMinutes(ms)).toBe(icu(ms));
    expect(romeOffsetMinutes(ms)).toBe(60);
  });

  it('writes the same stamps Intl would, and reads them back across both changes', () => {
    const intl = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Rome', hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    for (const iso of ['2026-03-29T00:59:59.999Z', '2026-03-29T01:00:00Z', '2026-10-25T00:30:00Z', '2026-10-25T01:30:00Z', '2031-12-31T23:00:00Z', '1999-02-28T23:59:59Z']) {
      const date = new Date(iso);
      const p = Object.fromEntries(intl.formatToParts(date).map((part) => [part.type, part.value]));
      expect(localStamp(date), iso).toBe(`${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}`);
      expect(minuteStamp(date), iso).toBe(`${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`);
      expect(new Date(romeIso(date)).getTime(), iso).toBe(date.getTime());
    }
    // Outside the repeated autumn hour a local stamp names one instant, found again.
    for (const iso of ['2026-03-29T01:00:00Z', '2026-10-25T01:00:00Z', '2026-10-25T02:30:00Z']) {
      const ms = Date.parse(iso);
      expect(parseLocalStamp(localStamp(new Date(ms))), iso).toBe(ms);
    }
    expect(() => romeIso(new Date(Number.NaN))).toThrow(RangeError);
  });
});

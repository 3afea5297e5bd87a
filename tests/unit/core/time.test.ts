import { describe, expect, it } from 'vitest';
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

describe("Rome's summer time", () => {
  it('changes at 01:00 UTC to the millisecond', () => {
    const spring = Date.UTC(2026, 2, 29, 1);
    expect([romeOffsetMinutes(spring - 1), romeOffsetMinutes(spring)]).toEqual([60, 120]);
    const autumn = Date.UTC(2026, 9, 25, 1);
    expect([romeOffsetMinutes(autumn - 1), romeOffsetMinutes(autumn)]).toEqual([120, 60]);
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

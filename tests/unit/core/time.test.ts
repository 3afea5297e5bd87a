import { describe, expect, it } from 'vitest';
import { localStamp, parseLocalStamp, romeIso } from '../../../server/time.js';

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

/**
 * The key limiter's person ceiling (issue 43): wrong passwords for one person are counted
 * wherever they come from, beside the address and global ceilings the API key has.
 */
import { describe, expect, it } from 'vitest';
import { KeyLimiter } from '../../../server/http/key-limiter.js';

describe('KeyLimiter with a subject', () => {
  it('holds back one person after perAddress failures from many addresses, and only that person', () => {
    let now = 0;
    const limiter = new KeyLimiter({ perAddress: 3, global: 100, windowMs: 60_000, now: () => now });
    for (let i = 0; i < 3; i++) limiter.fail(`10.0.0.${i}`, 'ann');
    const held = limiter.check('10.0.0.99', 'ann');
    expect(held).toMatchObject({ allowed: false, scope: 'person', newlyBlocked: true });
    expect(held.retryAfterS).toBe(60);
    expect(limiter.check('10.0.0.99', 'bob').allowed).toBe(true);
    // A fresh address asking with the API key (no subject) is not held back.
    expect(limiter.check('10.0.0.99').allowed).toBe(true);
    now = 60_001;
    expect(limiter.check('10.0.0.99', 'ann').allowed).toBe(true);
  });

  it('a success clears the person and the address, not the global count', () => {
    const limiter = new KeyLimiter({ perAddress: 2, global: 3 });
    limiter.fail('a', 'ann');
    limiter.fail('a', 'ann');
    expect(limiter.check('b', 'ann').allowed).toBe(false);
    limiter.succeed('a', 'ann');
    expect(limiter.check('b', 'ann').allowed).toBe(true);
    limiter.fail('c');
    // The global ceiling (3) still counts the two earlier failures.
    expect(limiter.check('c')).toMatchObject({ allowed: false, scope: 'global' });
  });
});

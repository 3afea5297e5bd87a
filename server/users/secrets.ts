/**
 * How a person's secrets are kept (issue 43). Passwords: scrypt (node:crypto, no native build)
 * with a random 16-byte salt and cost N=2^15, r=8, p=1 (about 32 MiB and a tenth of a second per
 * check), the parameters written into the stored value so a later cost can be read beside older
 * ones. Personal keys: 32 random bytes, so one SHA-256 is enough (nothing to guess from a hash);
 * the first characters are kept in clear to tell keys apart.
 */
import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (password: string, salt: Buffer, keylen: number, options: crypto.ScryptOptions) => Promise<Buffer>;

const COST = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
/** scrypt needs 128·N·r bytes; Node's default ceiling (32 MiB) is just under that. */
const MAX_MEM = 64 * 1024 * 1024;
/** Personal keys start with this, so a leaked one is recognisable (secret scanners, logs). */
export const KEY_MARK = 'stk_';
const PREFIX_LENGTH = KEY_MARK.length + 6;

/** `scrypt$N$r$p$salt$hash` (base64url): never the password. */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const hash = await scrypt(password, salt, KEY_LENGTH, { ...COST, maxmem: MAX_MEM });
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/** Whether `password` matches `stored`, in constant time; a malformed value matches nothing. */
export async function checkPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  if (![cost.N, cost.r, cost.p].every(Number.isSafeInteger) || expected.length !== KEY_LENGTH) return false;
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), KEY_LENGTH, { ...cost, maxmem: MAX_MEM });
  return crypto.timingSafeEqual(actual, expected);
}

/** A value as slow to check as a real one, for a name nobody has: the answer takes as long either way. */
export const DECOY_HASH = `scrypt$${COST.N}$${COST.r}$${COST.p}$${crypto.randomBytes(16).toString('base64url')}$${crypto.randomBytes(KEY_LENGTH).toString('base64url')}`;

/** A new personal key: the key (shown once), its hash and its clear prefix. */
export function newPersonalKey(): { key: string; hash: string; prefix: string } {
  const key = `${KEY_MARK}${crypto.randomBytes(32).toString('base64url')}`;
  return { key, hash: keyHash(key), prefix: key.slice(0, PREFIX_LENGTH) };
}

/** What a personal key is looked up by. */
export function keyHash(key: string): string {
  return crypto.createHash('sha256').update(key).digest('hex');
}

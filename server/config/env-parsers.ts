/**
 * How a variable's text becomes a value. Each parser gets the trimmed, non-empty text (the set
 * value, or else the declared default) and the variable's name for its error, so a bad value
 * stops the boot with a message that names the variable.
 */
import path from 'node:path';
import { shellWords } from '../process/shell-words.js';
import { ConfigError } from './config-error.js';

/** Turns a variable's text into its value; throws `ConfigError` naming `key` when it cannot. */
export type EnvParser<T> = (raw: string, key: string) => T;

export const text: EnvParser<string> = (raw) => raw;

/** A path, made absolute against the working directory. */
export const absolutePath: EnvParser<string> = (raw) => path.resolve(raw);

/** Set at all means on (DEV_MODE=0 too: the variable is a switch, not a boolean). */
export const presence: EnvParser<true> = () => true;

/** A non-negative integer; `min`/`max` clamp it (a value outside them is not an error). */
export function integer(bounds: { min?: number; max?: number } = {}): EnvParser<number> {
  return (raw, key) => {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 0) throw new ConfigError(`${key} must be a non-negative integer (got "${raw}")`);
    return Math.min(bounds.max ?? Infinity, Math.max(bounds.min ?? 0, value));
  };
}

/** A non-negative number, fractions allowed (minutes given as `0.5`). */
export const nonNegativeNumber: EnvParser<number> = (raw, key) => {
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new ConfigError(`${key} must be a non-negative number (got "${raw}")`);
  return value;
};

/** An absolute URL, without trailing slashes (callers append paths). */
export const baseUrl: EnvParser<string> = (raw, key) => {
  try {
    return new URL(raw).toString().replace(/\/+$/, '');
  } catch {
    throw new ConfigError(`${key} must be an absolute URL (got "${raw}")`);
  }
};

/** An absolute URL, or `off` (null): a download source that can be switched off. */
export const urlOrOff: EnvParser<string | null> = (raw, key) => (raw.toLowerCase() === 'off' ? null : baseUrl(raw, key));

/** One of a few words. */
export function oneOf<const W extends string>(words: readonly W[]): EnvParser<W> {
  return (raw, key) => {
    if (!(words as readonly string[]).includes(raw)) throw new ConfigError(`${key} must be one of ${words.join(', ')} (got "${raw}")`);
    return raw as W;
  };
}

/** `on` when the text is exactly `on`, else `otherwise` (lenient: an unknown word keeps the safe choice). */
export function switchedBy<const On extends string, const Off extends string>(on: On, otherwise: Off): EnvParser<On | Off> {
  return (raw) => (raw === on ? on : otherwise);
}

/** A comma list of host names, lower case, blanks dropped. */
export const hostList: EnvParser<string[]> = (raw) =>
  raw
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);

/** Chat ids are integers (negative for groups) of up to 52 significant bits, so a JS number holds them. */
export const chatIds: EnvParser<number[]> = (raw, key) => {
  const ids: number[] = [];
  for (const part of raw.split(',')) {
    const item = part.trim();
    if (!item) continue;
    const id = Number(item);
    if (!/^-?\d+$/.test(item) || !Number.isSafeInteger(id)) throw new ConfigError(`${key} must be a comma list of chat ids (got "${item}")`);
    ids.push(id);
  }
  return ids;
};

/** Command-line words, split the way a shell would (quotes, backslashes; no expansion). */
export const shellArgs: EnvParser<string[]> = (raw, key) => {
  try {
    return shellWords(raw);
  } catch (err) {
    throw new ConfigError(`${key}: ${(err as Error).message}`);
  }
};

/** A comma-separated list of non-negative integers (`0,1`: GPU indexes); empty: none. */
export const integerList: EnvParser<number[]> = (raw, key) => {
  const parts = raw.split(',').map((part) => part.trim()).filter(Boolean);
  const values = parts.map(Number);
  if (values.some((value) => !Number.isInteger(value) || value < 0)) throw new ConfigError(`${key} must be a comma-separated list of non-negative integers (got "${raw}")`);
  return [...new Set(values)];
};

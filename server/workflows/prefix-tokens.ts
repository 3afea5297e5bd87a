/**
 * `filename_prefix` values made safe for a job folder. The engine's frontend expands
 * `%date:…%` and `%Node.widget%` itself; an API client must do it or strip them.
 * Tokens the engine expands server-side are kept.
 */
import { STUDIO_TIME_ZONE } from '../time.js';

/** Tokens the engine itself replaces when saving, so they may stay in a prefix. */
const ENGINE_TOKENS = new Set(['width', 'height', 'year', 'month', 'day', 'hour', 'minute', 'second', 'batch_num']);
const FALLBACK_BASE = 'output';
const MAX_BASE_LENGTH = 80;

/**
 * The base name to keep from an original prefix: `%date:FMT%` expanded (studio time zone),
 * engine tokens kept, other `%…%` tokens stripped, directories, `..` and drive letters
 * dropped, unsafe characters replaced, no leading dot (hidden files are not listed).
 */
export function sanitizePrefixBase(prefix: string, now: Date = new Date()): string {
  const expanded = prefix.replace(/%([^%]*)%/g, (token, body: string) => {
    if (body.startsWith('date:')) return formatDate(body.slice(5), now);
    return ENGINE_TOKENS.has(body) ? token : '';
  });
  const segments = expanded
    .replace(/^[A-Za-z]:/, '')
    .split(/[\\/]/)
    .filter((segment) => segment !== '' && segment !== '.' && segment !== '..');
  const last = segments.at(-1) ?? '';
  const safe = last
    .replace(/[^\p{L}\p{N} _.%-]/gu, '_')
    .replace(/^[.\s]+/, '')
    .replace(/[.\s]+$/, '')
    .slice(0, MAX_BASE_LENGTH);
  return safe === '' ? FALLBACK_BASE : safe;
}

/** The frontend's `%date:…%` format: yyyy, yy, M/MM, d/dd, h/hh, m/mm, s/ss. */
export function formatDate(format: string, now: Date): string {
  const parts: Record<string, string> = {};
  const formatter = new Intl.DateTimeFormat('en-CA', {
    timeZone: STUDIO_TIME_ZONE,
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
    hourCycle: 'h23',
  });
  for (const part of formatter.formatToParts(now)) parts[part.type] = part.value;
  const value = (key: string) => Number(parts[key] ?? 0);
  const fields: Record<string, string> = { M: 'month', d: 'day', h: 'hour', m: 'minute', s: 'second' };
  return format.replace(/yyyy|yy|MM?|dd?|hh?|mm?|ss?/g, (token) => {
    if (token.startsWith('y')) return String(value('year')).slice(-token.length);
    const n = String(value(fields[token[0] ?? ''] ?? ''));
    return token.length === 2 ? n.padStart(2, '0') : n;
  });
}

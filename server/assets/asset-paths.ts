/**
 * Relative asset paths sent by clients (delete, thumbnails, file serving). The spec's rules: a
 * path containing `..` or starting with `/` is rejected. We also reject what would be the same
 * trick on other platforms (a backslash, a drive letter, NUL) and hidden names, and check the
 * joined result stays under its root.
 */
import path from 'node:path';
import { isBelow } from '../http/contained-path.js';

/** A checked relative path: its segments, or why it was refused. */
export type PathCheck = { ok: true; segments: string[]; rel: string } | { ok: false; reason: string };

/** Validate a client-supplied path relative to an asset root. */
export function checkRelativePath(raw: unknown): PathCheck {
  if (typeof raw !== 'string' || raw.trim() === '') return { ok: false, reason: 'empty path' };
  if (raw.includes('..')) return { ok: false, reason: 'path traversal ("..") is not allowed' };
  if (raw.startsWith('/') || raw.startsWith('\\') || /^[A-Za-z]:/.test(raw)) return { ok: false, reason: 'absolute paths are not allowed' };
  if (raw.includes('\\') || raw.includes('\0')) return { ok: false, reason: 'invalid characters in path' };
  const segments = raw.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.length === 0) return { ok: false, reason: 'empty path' };
  if (segments.some((segment) => segment.startsWith('.'))) return { ok: false, reason: 'hidden files are not assets' };
  return { ok: true, segments, rel: segments.join('/') };
}

/** The absolute path of checked `segments` under `root` (throws if it would leave `root`). */
export function resolveUnder(root: string, segments: readonly string[]): string {
  const full = path.resolve(root, ...segments);
  if (!isBelow(root, full)) throw new Error(`path escapes its root: ${segments.join('/')}`);
  return full;
}

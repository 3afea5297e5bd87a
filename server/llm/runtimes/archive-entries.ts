/**
 * The rules every archive entry passes before a byte of it is written (both readers share them):
 * a relative name whose every part stays inside the folder (no absolute path, drive letter or
 * `..`), a kind Studio writes (file or folder; a symbolic link only as a sibling name, which the
 * unpacker turns into a copy: no link is ever created on disk), and a running total under the cap.
 */
import path from 'node:path';
import { isInside } from '../../http/contained-path.js';

export class UnsafeArchiveError extends Error {}

export type EntryKind = 'file' | 'dir' | 'symlink' | 'other';

export interface ArchiveEntry {
  /** The name as the archive has it. */
  name: string;
  kind: EntryKind;
  size: number;
  /** Unix mode bits when the archive has them (the executable bit is kept). */
  mode: number;
  /** A symbolic link's target. */
  linkTarget?: string;
}

/** The entry's path parts inside the folder; throws for a name that would land outside it. */
export function safeParts(name: string): string[] {
  const unified = name.replace(/\\/g, '/');
  if (unified.startsWith('/') || /^[A-Za-z]:/.test(unified)) throw new UnsafeArchiveError(`refused: the entry "${name}" is an absolute path`);
  const parts = unified.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.some((p) => p === '..')) throw new UnsafeArchiveError(`refused: the entry "${name}" climbs out of its folder`);
  if (parts.some((p) => p.includes('\0'))) throw new UnsafeArchiveError(`refused: the entry "${name}" has a NUL in its name`);
  return parts;
}

/** The absolute path of `parts` under `root`, checked once more after joining. */
export function landingPath(root: string, parts: string[]): string {
  const target = path.resolve(root, ...parts);
  if (!isInside(root, target)) throw new UnsafeArchiveError(`refused: "${parts.join('/')}" would land outside its folder`);
  return target;
}

/** A link Studio accepts: a plain sibling name, turned into a copy of that file. */
export function checkLink(entry: ArchiveEntry): string {
  const target = entry.linkTarget ?? '';
  if (entry.kind !== 'symlink' || target === '' || /[\\/]/.test(target) || target === '..' || target === '.') {
    throw new UnsafeArchiveError(`refused: the entry "${entry.name}" is a link to "${target}" (links are refused; only a library alias to a file beside it is copied)`);
  }
  return target;
}

/** Counts bytes and entries against the caps. */
export class UnpackBudget {
  private bytes = 0;
  private entries = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly maxEntries = 20_000,
  ) {}

  /** Account for one more entry of `size` bytes; throws past a cap. */
  take(size: number): void {
    this.entries += 1;
    if (this.entries > this.maxEntries) throw new UnsafeArchiveError(`refused: more than ${this.maxEntries} entries`);
    this.more(size);
  }

  /** Bytes written past the declared sizes (a lying header) count too. */
  more(size: number): void {
    this.bytes += size;
    if (this.bytes > this.maxBytes) throw new UnsafeArchiveError(`refused: it unpacks to more than ${Math.round(this.maxBytes / 1048576)} MB (the cap)`);
  }
}

/**
 * Space on disk. The free-space guard: work that writes a known amount (a download, an upload)
 * asks first and is refused with the numbers ("needs 6.5 GB, 4.1 GB free") instead of failing
 * half-way with a full disk. Shared infrastructure: uploads (`http/`), the catalog's download
 * queue, the disk page, node installs (`nodes/`) and engine installs use it. And the one walk of
 * Studio's folders (the disk page, the catalog's `models_bytes`): every regular file below a
 * folder with the stat fields the disk page needs (size, mtime, and inode/device to tell hard
 * links and volumes apart). Symlinks are not followed, so a link to a folder elsewhere is never
 * counted or touched; a file hard-linked twice (the disk page's duplicate replacement) counts once.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { DomainError } from './domain-error.js';

/**
 * Free bytes for Studio's (unprivileged) writes on the volume holding `dir`; null when unknown.
 * A folder that does not exist yet (an engine about to be installed) is measured at its nearest
 * existing parent, the volume it will be created on.
 */
export async function freeBytesOf(dir: string): Promise<number | null> {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    try {
      const stats = await fsp.statfs(at);
      return stats.bavail * stats.bsize;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || path.dirname(at) === at) return null;
    }
  }
}

/** A volume's size, what is used of it, and what is free for Studio's (unprivileged) writes. */
export interface VolumeSpace {
  total: number;
  used: number;
  free: number;
}

/** The volume holding `dir` (`fs.statfs`, the one reader of it); null when the platform cannot say. */
export async function volumeSpace(dir: string): Promise<VolumeSpace | null> {
  try {
    const s = await fsp.statfs(dir);
    const total = s.blocks * s.bsize;
    return { total, used: total - s.bfree * s.bsize, free: s.bavail * s.bsize };
  } catch {
    return null;
  }
}

/** `6.5 GB`, `820.0 MB`, `12 KB`, in decimal units like the catalogs' `size_gb`. */
export function formatSize(bytes: number): string {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(1)} GB`;
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  if (bytes >= 1e3) return `${Math.round(bytes / 1e3)} KB`;
  return `${bytes} bytes`;
}

/**
 * Kept free beyond what is written, so no write Studio checks fills the disk to the last byte
 * (the database, its WAL and the logs still need room). One margin for every guard.
 */
const FREE_SPACE_MARGIN_BYTES = 16 * 1024 * 1024;

/** How the free bytes of a volume are learnt (tests hand in their own). */
export type FreeBytes = (dir: string) => Promise<number | null>;

/**
 * The free bytes when `needed` bytes plus the margin do not fit on the volume holding `dir`; null
 * when they fit. A volume that cannot be asked is let through: the write itself will report a full disk.
 */
export async function spaceShortfall(dir: string, needed: number, freeBytes: FreeBytes = freeBytesOf): Promise<number | null> {
  if (!(needed > 0)) return null;
  const free = await askFreeBytes(freeBytes, dir);
  return free !== null && free < needed + FREE_SPACE_MARGIN_BYTES ? free : null;
}

async function askFreeBytes(freeBytes: FreeBytes, dir: string): Promise<number | null> {
  try {
    return await freeBytes(dir);
  } catch {
    return null;
  }
}

/** `Not enough free disk space for downloading x: needs 6.5 GB, 4.1 GB free`. */
export function noSpaceMessage(what: string, needed: number, free: number): string {
  return `Not enough free disk space for ${what}: needs ${formatSize(needed)}, ${formatSize(free)} free`;
}

/** Refuse (`no_space`, answered 507) when `needed` bytes plus the margin do not fit on the volume holding `dir`. */
export async function ensureFreeSpace(dir: string, needed: number, what: string): Promise<void> {
  const free = await spaceShortfall(dir, needed);
  if (free !== null) throw new DomainError('no_space', noSpaceMessage(what, needed, free), { needed_bytes: needed, free_bytes: free });
}

export interface WalkedFile {
  path: string;
  size: number;
  mtimeMs: number;
  ino: number;
  dev: number;
  /** Hard links to the same inode (a file already linked counts its bytes once). */
  nlink: number;
}

/** Every regular file below `dir` (missing or unreadable folders give nothing). */
export async function walkFiles(dir: string): Promise<WalkedFile[]> {
  const out: WalkedFile[] = [];
  await walkInto(dir, out);
  return out;
}

async function walkInto(dir: string, out: WalkedFile[]): Promise<void> {
  let entries;
  try {
    entries = await fsp.readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  // A folder's files are stat'ed together (the thread pool overlaps them): a second duplicate scan of
  // 2 000 files is mostly these calls. Sub-folders are walked one after another, in order.
  const files = entries.filter((entry) => entry.isFile()).map((entry) => path.join(dir, entry.name));
  const stats = await Promise.all(files.map((full) => fsp.lstat(full).catch(() => null)));
  stats.forEach((stat, i) => {
    if (stat) out.push({ path: files[i]!, size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino, dev: stat.dev, nlink: stat.nlink });
  });
  for (const entry of entries) if (entry.isDirectory()) await walkInto(path.join(dir, entry.name), out);
}

/** Bytes on disk of `files`, each inode counted once. */
export function distinctBytes(files: readonly WalkedFile[]): number {
  const seen = new Set<string>();
  let bytes = 0;
  for (const file of files) {
    const key = `${file.dev}:${file.ino}`;
    if (seen.has(key)) continue;
    seen.add(key);
    bytes += file.size;
  }
  return bytes;
}

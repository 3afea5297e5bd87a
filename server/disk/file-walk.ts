/**
 * Walking Studio's folders: every regular file below a folder with the stat fields the disk page
 * needs (size, mtime, and inode/device to tell hard links and volumes apart). Symlinks are not
 * followed, so a link to a folder elsewhere is never counted or touched.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';

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

/** A download's part file or its resume sidecar (`<file>.part`, `<file>.part.meta.json`). */
export function isPartialDownload(file: string): boolean {
  return file.endsWith('.part') || file.endsWith('.part.meta.json');
}

/** The final file a part file belongs to. */
export function finalFileOfPart(file: string): string {
  return file.replace(/\.part(\.meta\.json)?$/, '');
}

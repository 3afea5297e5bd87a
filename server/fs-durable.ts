/**
 * Small durability helpers shared by the catalog store and the downloader (so neither imports
 * the other): data is fsynced before a rename makes it visible, and the directory after, so a
 * power cut never leaves a half-written file under a real name. And the one temp-and-rename
 * write of Studio's small files (stores, settings, snapshots).
 */
import crypto from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';

/**
 * Write `data` to `file` (its folder made when missing) through a temp file of its own beside it
 * and a rename, so a reader or a crash sees the old file or the new one, never half of one.
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  await fsp.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
  try {
    await fsp.writeFile(tmp, data);
    await fsp.rename(tmp, file);
  } catch (err) {
    // A full disk or a rename refused leaves no temp file behind.
    await fsp.rm(tmp, { force: true });
    throw err;
  }
}

/** Whether anything (a link too) is at `file`. */
export async function pathExists(file: string): Promise<boolean> {
  return fsp.lstat(file).then(() => true, () => false);
}

export async function fsyncFile(file: string): Promise<void> {
  const handle = await fsp.open(file, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** fsync a directory so a rename inside it is durable; best effort (not possible on Windows). */
export async function fsyncDir(dir: string): Promise<void> {
  try {
    const handle = await fsp.open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {}
}

/** rename, retried briefly: on Windows a virus scanner may hold a fresh file for a moment. */
export async function renameWithRetry(from: string, to: string): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      await fsp.rename(from, to);
      return;
    } catch (err) {
      const code = errnoCode(err);
      if (attempt >= 5 || (code !== 'EPERM' && code !== 'EBUSY' && code !== 'EACCES')) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100 * (attempt + 1)));
    }
  }
}

/** The `code` of a Node system error, or of its `cause` (fetch wraps socket errors). */
export function errnoCode(err: unknown): string | undefined {
  const direct = (err as { code?: unknown } | null)?.code;
  if (typeof direct === 'string') return direct;
  const cause = (err as { cause?: { code?: unknown } } | null)?.cause?.code;
  return typeof cause === 'string' ? cause : undefined;
}

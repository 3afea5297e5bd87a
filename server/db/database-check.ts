/**
 * The boot check of Studio's database: SQLite's `PRAGMA quick_check` on a read-only connection
 * (a read-write one would checkpoint a damaged WAL into the file when it closes), and the copy of
 * a damaged file that Studio keeps before anyone tries to repair it.
 */
import Database from 'better-sqlite3';
import crypto from 'node:crypto';
import fs from 'node:fs';

/** The database file is not a database, or SQLite found damaged pages in it. */
export class DatabaseCorruptError extends Error {
  constructor(
    readonly file: string,
    /** What SQLite reported (the first few lines of quick_check, or the error). */
    readonly problems: readonly string[],
  ) {
    super(`The database ${file} is damaged: ${problems.join('; ')}`);
  }
}

/** Lines of quick_check kept for the report (a badly damaged file can yield thousands). */
const MAX_PROBLEMS = 5;

/** SQLite's answer to a file that is not a database or is damaged (SQLITE_CORRUPT_* included). */
export function isCorruption(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^SQLITE_(CORRUPT|NOTADB)/.test(code);
}

/** Throw `DatabaseCorruptError` unless `file` (which exists and is not empty) passes quick_check. */
export function quickCheck(file: string): void {
  let db: Database.Database | null = null;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const rows = db.pragma('quick_check') as Array<{ quick_check: string }>;
    const problems = rows.map((row) => row.quick_check).filter((line) => line !== 'ok');
    if (problems.length > 0) throw new DatabaseCorruptError(file, problems.slice(0, MAX_PROBLEMS));
  } catch (err) {
    if (isCorruption(err)) throw new DatabaseCorruptError(file, [(err as Error).message]);
    throw err;
  } finally {
    db?.close();
  }
}

/**
 * Copy the damaged `file` (and its WAL, which holds the latest writes) beside it as
 * `<file>.broken-<hash>`, named by content: a later boot on the same damaged file finds its copy
 * instead of making another, and a copy is never overwritten. Returns the copy's path.
 */
export function keepBrokenCopy(file: string): string {
  // An empty WAL (a read-only check leaves one) carries nothing worth keeping.
  const wal = `${file}-wal`;
  const sides = fs.existsSync(wal) && fs.statSync(wal).size > 0 ? [file, wal] : [file];
  const hash = crypto.createHash('sha256');
  for (const f of sides) hashFile(hash, f);
  const copy = `${file}.broken-${hash.digest('hex').slice(0, 12)}`;
  for (const f of sides) {
    const target = f === file ? copy : `${copy}-wal`;
    if (fs.existsSync(target)) continue;
    const tmp = `${target}.${process.pid}.tmp`;
    fs.rmSync(tmp, { force: true });
    fs.copyFileSync(f, tmp, fs.constants.COPYFILE_EXCL);
    fs.chmodSync(tmp, 0o600);
    try {
      // A hard link, unlike a rename, fails rather than replace a copy that appeared meanwhile.
      fs.linkSync(tmp, target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }
  return copy;
}

function hashFile(hash: crypto.Hash, file: string): void {
  const fd = fs.openSync(file, 'r');
  try {
    const chunk = Buffer.alloc(1024 * 1024);
    for (let n = fs.readSync(fd, chunk); n > 0; n = fs.readSync(fd, chunk)) hash.update(chunk.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
}

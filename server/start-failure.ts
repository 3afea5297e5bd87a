/**
 * Why Studio could not start, in one or two sentences that name the file and the fix: what the
 * headless console and the desktop's error dialog show. The stack trace goes to the log only.
 */
import path from 'node:path';
import { ConfigError } from './config.js';
import { DatabaseCorruptError } from './db/database-check.js';
import { DatabaseTooNewError } from './db/database.js';

/** The words for a startup failure; `dbFile` is the database Studio was opening, when known. */
export function describeStartFailure(err: unknown, dbFile?: string): string {
  if (err instanceof ConfigError) return `The configuration is invalid: ${err.message}`;
  if (err instanceof DatabaseTooNewError || err instanceof DatabaseCorruptError) return err.message;
  const e = (err ?? {}) as NodeJS.ErrnoException & { port?: number };
  const message = err instanceof Error ? err.message : String(err);
  if (e.code === 'EADDRINUSE') return `Port ${e.port ?? ''} is already in use (another Studio, or set STUDIO_PORT).`;
  if (typeof e.code === 'string' && e.code.startsWith('SQLITE_')) {
    const db = dbFile ?? 'its database';
    return `Studio cannot use its database ${db} (${e.code}: ${message}). ${sqliteFix(e.code, dbFile)}`;
  }
  const where = e.path ?? dbFile;
  if (e.code === 'EACCES' || e.code === 'EPERM' || e.code === 'EROFS') {
    return `Studio cannot write ${where ?? 'its data directory'} (${message}). Give this user write access to it, or set STUDIO_DIR to a folder you can write.`;
  }
  if (e.code === 'EISDIR') {
    // Typical of a container bind mount naming a file that did not exist: a folder appears instead.
    return `${where ?? 'A file Studio needs'} is a folder where Studio expects a file (${message}). Move the folder away and start Studio again.`;
  }
  if (e.code === 'ENOSPC' || e.code === 'EDQUOT') {
    return `The disk holding ${where ?? "Studio's data directory"} is full (${message}). Free some space and start Studio again.`;
  }
  return message;
}

function sqliteFix(code: string, dbFile: string | undefined): string {
  const dir = dbFile ? path.dirname(dbFile) : 'its folder';
  if (/^SQLITE_(CANTOPEN|PERM|READONLY|AUTH)/.test(code)) {
    return `Check that ${dir} and the files in it belong to this user and are writable, or set STUDIO_DIR to another folder.`;
  }
  if (/^SQLITE_(FULL|IOERR)/.test(code)) return `The disk holding ${dir} may be full or failing: free some space and start Studio again.`;
  if (/^SQLITE_(BUSY|LOCKED)/.test(code)) return 'Another program holds the file (another Studio with the same STUDIO_DIR?): stop it and start Studio again.';
  return 'The log has the details.';
}

/**
 * Stored SHA-256 of files the duplicate finder compared (`file_hashes`, migration 7). A hash is
 * computed once and reused while the file's size and mtime are unchanged, so a second scan of a
 * large models folder reads no file content at all.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { Db } from '../db/database.js';

interface HashRow {
  path: string;
  size: number;
  mtime_ms: number;
  sha256: string;
}

/** What the store needs to know of a file to trust (or refresh) its hash. */
export interface FileStat {
  path: string;
  size: number;
  mtimeMs: number;
}

/** The file's SHA-256, streamed in large reads (the hash is the cost, not the syscalls). */
function sha256File(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = crypto.createHash('sha256');
    const stream = fs.createReadStream(file, { highWaterMark: 4 * 1024 * 1024 });
    stream.on('data', (chunk) => hash.update(chunk));
    stream.on('error', reject);
    stream.on('end', () => resolve(hash.digest('hex')));
  });
}

export class FileHashStore {
  private readonly getStmt;
  private readonly putStmt;
  private readonly dropStmt;

  constructor(private readonly db: Db) {
    this.getStmt = db.prepare<[string], HashRow>('SELECT path, size, mtime_ms, sha256 FROM file_hashes WHERE path = ?');
    this.putStmt = db.prepare(
      `INSERT INTO file_hashes (path, size, mtime_ms, sha256, hashed_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms, sha256 = excluded.sha256, hashed_at = excluded.hashed_at`,
    );
    this.dropStmt = db.prepare('DELETE FROM file_hashes WHERE path = ?');
  }

  /** The stored hash when the file is as it was when hashed, else null. */
  stored(file: FileStat): string | null {
    const row = this.getStmt.get(file.path);
    return row && row.size === file.size && row.mtime_ms === Math.trunc(file.mtimeMs) ? row.sha256 : null;
  }

  /** The file's hash: stored when still valid, else computed now and stored. */
  async hashOf(file: FileStat): Promise<{ sha256: string; computed: boolean }> {
    const known = this.stored(file);
    if (known) return { sha256: known, computed: false };
    const sha256 = await sha256File(file.path);
    this.putStmt.run(file.path, file.size, Math.trunc(file.mtimeMs), sha256, new Date().toISOString());
    return { sha256, computed: true };
  }

  /** Record a hash known without reading the file (a hard link now shares a hashed inode). */
  remember(file: FileStat, sha256: string): void {
    this.putStmt.run(file.path, file.size, Math.trunc(file.mtimeMs), sha256, new Date().toISOString());
  }

  /** Forget a file (it was deleted or replaced). */
  forget(file: string): void {
    this.dropStmt.run(file);
  }

  /** Drop the rows of files that are gone, in one transaction. */
  prune(exists: (file: string) => boolean): number {
    const rows = this.db.prepare<[], { path: string }>('SELECT path FROM file_hashes').all();
    const gone = rows.filter((row) => !exists(row.path));
    this.db.transaction(() => gone.forEach((row) => this.dropStmt.run(row.path)))();
    return gone.length;
  }
}

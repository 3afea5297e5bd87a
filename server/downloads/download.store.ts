/**
 * The download queue in SQLite (`downloads`, migration 2): one row per file, in queue order by
 * `id`. The row is the durable truth about what the user asked for; the bytes themselves live in
 * the `.part` file, so a row left `downloading` by a crash simply starts again and resumes.
 */
import type { Db } from '../db/database.js';
import type { DownloadStatus } from '../contracts/downloads.contract.js';

/**
 * Which list a file belongs to, so its owner can find it again when it starts. The values are
 * the catalogs' kinds because migration 2's CHECK constraint fixes them in the table.
 */
export type DownloadKind = 'models' | 'loras' | 'llm';

/** One row of `downloads`. */
export interface DownloadRow {
  id: number;
  filename: string;
  kind: DownloadKind;
  status: DownloadStatus;
  bytes: number;
  total: number | null;
  error: string | null;
  error_kind: string | null;
  attempt: number;
  sha256: string | null;
  queued_at: string;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
}

/** Prepared statements over the `downloads` table. */
export class DownloadStore {
  private readonly statements;

  constructor(
    private readonly db: Db,
    private readonly now: () => string = () => new Date().toISOString(),
  ) {
    this.statements = {
      get: db.prepare('SELECT * FROM downloads WHERE filename = ?'),
      all: db.prepare('SELECT * FROM downloads ORDER BY id'),
      nextQueued: db.prepare("SELECT * FROM downloads WHERE status = 'queued' ORDER BY id LIMIT 1"),
      remove: db.prepare('DELETE FROM downloads WHERE filename = ?'),
      insert: db.prepare(
        "INSERT INTO downloads (filename, kind, status, bytes, total, queued_at, updated_at) VALUES (?, ?, 'queued', ?, ?, ?, ?)",
      ),
      start: db.prepare(
        "UPDATE downloads SET status = 'downloading', bytes = ?, attempt = attempt + 1, error = NULL, error_kind = NULL, started_at = ?, updated_at = ? WHERE filename = ?",
      ),
      progress: db.prepare('UPDATE downloads SET bytes = ?, total = COALESCE(?, total), updated_at = ? WHERE filename = ?'),
      done: db.prepare(
        "UPDATE downloads SET status = 'done', bytes = ?, total = ?, sha256 = ?, error = NULL, error_kind = NULL, finished_at = ?, updated_at = ? WHERE filename = ?",
      ),
      fail: db.prepare(
        "UPDATE downloads SET status = 'error', error = ?, error_kind = ?, finished_at = ?, updated_at = ? WHERE filename = ?",
      ),
      dropDone: db.prepare("DELETE FROM downloads WHERE status = 'done'"),
      requeueRunning: db.prepare("UPDATE downloads SET status = 'queued', updated_at = ? WHERE status = 'downloading'"),
    };
  }

  /** The row of `filename`, or null. */
  get(filename: string): DownloadRow | null {
    return (this.statements.get.get(filename) as DownloadRow | undefined) ?? null;
  }

  /** Every row in queue order. */
  all(): DownloadRow[] {
    return this.statements.all.all() as DownloadRow[];
  }

  /** The oldest queued row, or null. */
  nextQueued(): DownloadRow | null {
    return (this.statements.nextQueued.get() as DownloadRow | undefined) ?? null;
  }

  /** Put `filename` at the back of the queue, replacing a finished or failed row. */
  enqueue(filename: string, kind: DownloadKind, bytes: number, total: number | null): DownloadRow {
    const now = this.now();
    this.db.transaction(() => {
      this.statements.remove.run(filename);
      this.statements.insert.run(filename, kind, bytes, total, now, now);
    })();
    return this.get(filename)!;
  }

  /** The row starts (again): `downloading`, one more attempt, `bytes` already in the part. */
  markDownloading(filename: string, bytes: number): void {
    const now = this.now();
    this.statements.start.run(bytes, now, now, filename);
  }

  /** Remember how far a running download got (shown after a restart until it resumes). */
  saveProgress(filename: string, bytes: number, total: number | null): void {
    this.statements.progress.run(bytes, total, this.now(), filename);
  }

  markDone(filename: string, bytes: number, sha256: string): void {
    const now = this.now();
    this.statements.done.run(bytes, bytes, sha256, now, now, filename);
  }

  markError(filename: string, error: string, kind: string): void {
    const now = this.now();
    this.statements.fail.run(error, kind, now, now, filename);
  }

  remove(filename: string): boolean {
    return this.statements.remove.run(filename).changes > 0;
  }

  /**
   * Boot: finished rows are history nobody needs (presence comes from the disk), and rows a
   * stop or crash left `downloading` go back to `queued`, keeping their place in line.
   */
  recoverAfterBoot(): DownloadRow[] {
    this.db.transaction(() => {
      this.statements.dropDone.run();
      this.statements.requeueRunning.run(this.now());
    })();
    return this.all();
  }
}

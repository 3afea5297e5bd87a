/**
 * The only code that writes the `jobs` table. Imported by `job-lifecycle.ts` alone (a test in
 * tests/unit/jobs checks the imports): every change of a job's status goes through the lifecycle,
 * which validates it, and so every change reaches the event log and the WebSocket the same way.
 */
import type { Db } from '../db/database.js';
import type { JobRecord, JobStatus } from '../contracts/jobs.contract.js';
import { fromRow, JOB_COLUMNS, toRow, type JobRow } from './job-row.js';

/** The fields a status change may set besides `status`. */
export type StatusFields = Partial<Pick<JobRecord, 'started_at' | 'finished_at' | 'duration' | 'output' | 'error' | 'engine_id'>>;

export class JobRecordWriter {
  private readonly insertStmt;
  private readonly getStmt;
  private readonly deleteStmt;
  private readonly engineStmt;

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO jobs (${JOB_COLUMNS}) VALUES (@prompt_id, @workflow_id, @workflow_name, @output_dir, @status, @queued_at, @started_at,
       @finished_at, @duration, @input_image, @params, @seeds, @output, @error, @retry_of, @preset_id, @created_ms, @starred, @engine_id, @owner_id)`,
    );
    this.getStmt = db.prepare(`SELECT ${JOB_COLUMNS} FROM jobs WHERE prompt_id = ?`);
    this.deleteStmt = db.prepare('DELETE FROM jobs WHERE prompt_id = ?');
    this.engineStmt = db.prepare("UPDATE jobs SET engine_id = ? WHERE prompt_id = ? AND status = 'queued'");
  }

  /** Record the engine a queued job was handed to (null: back in Studio's queue); false when the job is gone or no longer queued. */
  setEngine(promptId: string, engineId: string | null): boolean {
    return this.engineStmt.run(engineId, promptId).changes > 0;
  }

  insert(job: JobRecord, createdMs = Date.now()): void {
    this.insertStmt.run({ ...toRow(job), created_ms: createdMs });
  }

  /**
   * Move a job from `from` to `to` with `fields`, only if it is still in `from` (compare and set,
   * so two paths racing to finish one job cannot both win). Returns the new record, or null when
   * the job is gone or was no longer in `from`.
   */
  move(promptId: string, from: JobStatus, to: JobStatus, fields: StatusFields): JobRecord | null {
    const row = toRow({ ...(fields as JobRecord), prompt_id: promptId, status: to });
    const keys = ['status', ...Object.keys(fields).filter((k) => k in row)] as Array<keyof typeof row>;
    const values: Record<string, unknown> = { prompt_id: promptId, from };
    for (const k of keys) values[k] = row[k];
    const sets = keys.map((k) => `${k} = @${k}`).join(', ');
    const changed = this.db.prepare(`UPDATE jobs SET ${sets} WHERE prompt_id = @prompt_id AND status = @from`).run(values).changes;
    if (changed === 0) return null;
    const stored = this.getStmt.get(promptId) as JobRow | undefined;
    return stored ? fromRow(stored) : null;
  }

  /** Star or unstar a job (not a status change); returns the new record, or null when there is no such job. */
  setStarred(promptId: string, starred: boolean): JobRecord | null {
    if (this.db.prepare('UPDATE jobs SET starred = ? WHERE prompt_id = ?').run(starred ? 1 : 0, promptId).changes === 0) return null;
    const stored = this.getStmt.get(promptId) as JobRow | undefined;
    return stored ? fromRow(stored) : null;
  }

  /** Remove records; returns the ones that existed (in one transaction). */
  delete(promptIds: readonly string[]): JobRecord[] {
    return this.db.transaction(() => {
      const removed: JobRecord[] = [];
      for (const id of promptIds) {
        const row = this.getStmt.get(id) as JobRow | undefined;
        if (!row) continue;
        this.deleteStmt.run(id);
        removed.push(fromRow(row));
      }
      return removed;
    })();
  }
}

/**
 * Jobs in SQLite. The record is the spec's job record; `created_ms` orders history (newest
 * first) and backs its paging index.
 */
import type { Db } from '../db/database.js';
import { FINISHED_STATUSES, type JobRecord, type JobStatus } from '../contracts/jobs.contract.js';

interface JobRow {
  prompt_id: string;
  workflow_id: string | null;
  workflow_name: string | null;
  output_dir: string | null;
  status: JobStatus;
  queued_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  duration: number | null;
  input_image: string | null;
  params: string;
  seeds: string;
  output: string | null;
  error: string | null;
  retry_of: string | null;
  preset_id: string | null;
  created_ms: number;
}

export interface HistoryQuery {
  limit?: number;
  offset?: number;
  status?: JobStatus;
  workflowId?: string;
}

const COLUMNS = 'prompt_id, workflow_id, workflow_name, output_dir, status, queued_at, started_at, finished_at, duration, input_image, params, seeds, output, error, retry_of, preset_id, created_ms';

export class JobStore {
  private readonly insertStmt;
  private readonly getStmt;
  private readonly activeStmt;
  private readonly deleteStmt;

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO jobs (${COLUMNS}) VALUES (@prompt_id, @workflow_id, @workflow_name, @output_dir, @status, @queued_at, @started_at,
       @finished_at, @duration, @input_image, @params, @seeds, @output, @error, @retry_of, @preset_id, @created_ms)`,
    );
    this.getStmt = db.prepare(`SELECT ${COLUMNS} FROM jobs WHERE prompt_id = ?`);
    this.activeStmt = db.prepare(`SELECT ${COLUMNS} FROM jobs WHERE status IN ('queued','running') ORDER BY created_ms`);
    this.deleteStmt = db.prepare('DELETE FROM jobs WHERE prompt_id = ?');
  }

  /** Store a new job. */
  insert(job: JobRecord, createdMs = Date.now()): void {
    this.insertStmt.run({ ...toRow(job), created_ms: createdMs });
  }

  /** One job, or null. */
  get(promptId: string): JobRecord | null {
    const row = this.getStmt.get(promptId) as JobRow | undefined;
    return row ? fromRow(row) : null;
  }

  /** Change some fields of a job; returns the updated record (null when it is gone). */
  update(promptId: string, patch: Partial<Omit<JobRecord, 'prompt_id' | 'progress'>>): JobRecord | null {
    const entries = Object.entries(patch).filter(([k]) => k !== 'prompt_id' && k !== 'progress');
    if (entries.length) {
      const row = toRow({ ...(patch as JobRecord) });
      const sets = entries.map(([k]) => `${k} = @${k}`).join(', ');
      const values: Record<string, unknown> = { prompt_id: promptId };
      for (const [k] of entries) values[k] = (row as unknown as Record<string, unknown>)[k];
      this.db.prepare(`UPDATE jobs SET ${sets} WHERE prompt_id = @prompt_id`).run(values);
    }
    return this.get(promptId);
  }

  /** Jobs queued or running, oldest first. */
  active(): JobRecord[] {
    return (this.activeStmt.all() as JobRow[]).map(fromRow);
  }

  /** Finished jobs (completed, error, stalled), newest first, optionally paged and filtered. */
  history(query: HistoryQuery = {}): JobRecord[] {
    // `+status` keeps SQLite off the status index: nearly every row is finished, so walking
    // `jobs_created` newest first and filtering is what makes a page cheap (0.3 ms instead of a
    // 16 ms sort of every finished row at 50 000 jobs).
    const where: string[] = [`+status IN (${FINISHED_STATUSES.map((s) => `'${s}'`).join(',')})`];
    const values: Record<string, unknown> = {};
    if (query.status) {
      where.push('status = @status');
      values.status = query.status;
    }
    if (query.workflowId) {
      where.push('workflow_id = @workflow_id');
      values.workflow_id = query.workflowId;
    }
    let sql = `SELECT ${COLUMNS} FROM jobs WHERE ${where.join(' AND ')} ORDER BY created_ms DESC, rowid DESC`;
    if (query.limit !== undefined) {
      sql += ' LIMIT @limit OFFSET @offset';
      values.limit = query.limit;
      values.offset = query.offset ?? 0;
    } else if (query.offset) {
      sql += ' LIMIT -1 OFFSET @offset';
      values.offset = query.offset;
    }
    return (this.db.prepare(sql).all(values) as JobRow[]).map(fromRow);
  }

  /** Remove records; returns the ones that existed (in one transaction). */
  delete(promptIds: readonly string[]): JobRecord[] {
    return this.db.transaction(() => {
      const removed: JobRecord[] = [];
      for (const id of promptIds) {
        const job = this.get(id);
        if (!job) continue;
        this.deleteStmt.run(id);
        removed.push(job);
      }
      return removed;
    })();
  }

  /** Rows in the table. */
  count(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM jobs').get() as { n: number }).n;
  }
}

function toRow(job: JobRecord): Omit<JobRow, 'created_ms'> {
  return {
    prompt_id: job.prompt_id,
    workflow_id: job.workflow_id ?? null,
    workflow_name: job.workflow_name ?? null,
    output_dir: job.output_dir ?? null,
    status: job.status,
    queued_at: job.queued_at ?? null,
    started_at: job.started_at ?? null,
    finished_at: job.finished_at ?? null,
    duration: job.duration ?? null,
    input_image: job.input_image ?? null,
    params: JSON.stringify(job.params ?? {}),
    seeds: JSON.stringify(job.seeds ?? {}),
    output: job.output ? JSON.stringify(job.output) : null,
    error: job.error ?? null,
    retry_of: job.retry_of ?? null,
    preset_id: job.preset_id ?? null,
  };
}

function fromRow(row: JobRow): JobRecord {
  const job: JobRecord = {
    prompt_id: row.prompt_id,
    workflow_id: row.workflow_id,
    workflow_name: row.workflow_name,
    output_dir: row.output_dir,
    status: row.status,
    queued_at: row.queued_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
    duration: row.duration,
    input_image: row.input_image,
    params: JSON.parse(row.params) as Record<string, unknown>,
    seeds: JSON.parse(row.seeds) as Record<string, number>,
    output: row.output ? (JSON.parse(row.output) as JobRecord['output']) : null,
    error: row.error,
  };
  if (row.retry_of) job.retry_of = row.retry_of;
  if (row.preset_id) job.preset_id = row.preset_id;
  return job;
}

/**
 * Jobs in SQLite, read side. The record is the spec's job record; `created_ms` orders history
 * (newest first) and backs its paging index. Writes belong to the job lifecycle
 * (`job-lifecycle.ts`), the one owner of a job's status.
 */
import type { Db } from '../db/database.js';
import { FINISHED_STATUSES, type JobRecord, type JobStatus } from '../contracts/jobs.contract.js';
import { fromRow, JOB_COLUMNS as COLUMNS, type JobRow } from './job-row.js';
import type { Statement } from 'better-sqlite3';
import { parseLocalStamp } from '../time.js';

export interface HistoryQuery {
  limit?: number;
  offset?: number;
  status?: JobStatus;
  workflowId?: string;
  /** Words of a text parameter (the prompt) or of the workflow name, case-insensitive. */
  text?: string;
  /** Submitted (`created_ms`) at or after `fromMs` and before `toMs`. */
  fromMs?: number;
  toMs?: number;
  starred?: boolean;
  /** Only the jobs of this person. */
  ownerId?: string;
}

export class JobStore {
  private readonly getStmt;
  private readonly activeStmt;
  private readonly activeCountStmt;
  /** History statements by their SQL (a few dozen shapes at most: filters, up to 8 search words, paging on or off). */
  private readonly historyStmts = new Map<string, Statement>();

  constructor(private readonly db: Db) {
    this.getStmt = db.prepare(`SELECT ${COLUMNS} FROM jobs WHERE prompt_id = ?`);
    this.activeStmt = db.prepare(`SELECT ${COLUMNS} FROM jobs WHERE status IN ('queued','running') ORDER BY created_ms`);
    this.activeCountStmt = db.prepare("SELECT COUNT(*) AS n FROM jobs WHERE status IN ('queued','running')");
  }

  get(promptId: string): JobRecord | null {
    const row = this.getStmt.get(promptId) as JobRow | undefined;
    return row ? fromRow(row) : null;
  }

  /** Jobs queued or running, oldest first. */
  active(): JobRecord[] {
    return (this.activeStmt.all() as JobRow[]).map(fromRow);
  }

  activeCount(): number {
    return (this.activeCountStmt.get() as { n: number }).n;
  }

  /** Finished jobs (completed, error, stalled, cancelled), newest first, optionally paged and filtered. */
  history(query: HistoryQuery = {}): JobRecord[] {
    const { stmt, values } = this.historyStatement(query);
    return (stmt.all(values) as JobRow[]).map(fromRow);
  }

  private historyStatement(query: HistoryQuery): { stmt: Statement; values: Record<string, unknown> } {
    // `+status` keeps SQLite off the status index: nearly every row is finished, so walking
    // `jobs_created` newest first and filtering is what makes a page cheap (0.3 ms instead of a
    // 16 ms sort of every finished row at 50 000 jobs).
    const where: string[] = [`+status IN (${FINISHED_STATUSES.map((s) => `'${s}'`).join(',')})`];
    const values: Record<string, unknown> = {};
    // The plain filters: each a column compared with a named value (unset: no filter).
    const filters = [
      ['status = @status', query.status || undefined],
      ['workflow_id = @workflow_id', query.workflowId || undefined],
      ['created_ms >= @from_ms', query.fromMs],
      ['created_ms < @to_ms', query.toMs],
      ['owner_id = @owner_id', query.ownerId],
      ['starred = @starred', query.starred === undefined ? undefined : Number(query.starred)],
    ] as const;
    for (const [clause, value] of filters) {
      if (value === undefined) continue;
      where.push(clause);
      values[clause.slice(clause.indexOf('@') + 1)] = value;
    }
    if (query.text) {
      // Every word must appear, in a text parameter or the workflow name (LIKE: ASCII case-insensitive).
      query.text.split(/\s+/).filter(Boolean).slice(0, 8).forEach((word, i) => {
        where.push(`(workflow_name LIKE @w${i} ESCAPE '\\' OR EXISTS (SELECT 1 FROM json_each(params) WHERE type = 'text' AND value LIKE @w${i} ESCAPE '\\'))`);
        values[`w${i}`] = `%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      });
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
    let stmt = this.historyStmts.get(sql);
    if (!stmt) this.historyStmts.set(sql, (stmt = this.db.prepare(sql)));
    return { stmt, values };
  }

  /** The owner of the job whose output folder is `folder`; null when no job has it. */
  ownerOfFolder(folder: string): string | null {
    return (this.db.prepare('SELECT owner_id FROM jobs WHERE output_dir = ? LIMIT 1').get(folder) as { owner_id: string } | undefined)?.owner_id ?? null;
  }

  /**
   * A person's jobs submitted at or after `sinceMs`, oldest first: when, and how long the ended ones
   * ran on an engine in seconds (`duration`; a cancelled or stalled job has none recorded: from its
   * start to its end, when it started).
   */
  submittedSince(ownerId: string, sinceMs: number): Array<{ createdMs: number; duration: number | null }> {
    const rows = this.db
      .prepare('SELECT created_ms, duration, started_at, finished_at FROM jobs WHERE owner_id = ? AND created_ms >= ? ORDER BY created_ms')
      .all(ownerId, sinceMs) as Array<{ created_ms: number; duration: number | null; started_at: string | null; finished_at: string | null }>;
    return rows.map((r) => {
      const started = parseLocalStamp(r.started_at);
      const finished = parseLocalStamp(r.finished_at);
      const ran = started !== null && finished !== null ? Math.max(0, Math.round((finished - started) / 1000)) : null;
      return { createdMs: r.created_ms, duration: r.duration ?? ran };
    });
  }

  /** How many of a person's jobs are queued or running. */
  activeCountOf(ownerId: string): number {
    return (this.db.prepare("SELECT COUNT(*) AS n FROM jobs WHERE owner_id = ? AND status IN ('queued','running')").get(ownerId) as { n: number }).n;
  }

  /** Prompt ids some job was retried from (`retry_of` of any job). */
  retriedIds(): string[] {
    return (this.db.prepare('SELECT DISTINCT retry_of AS id FROM jobs WHERE retry_of IS NOT NULL').all() as Array<{ id: string }>).map((r) => r.id);
  }

  count(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM jobs').get() as { n: number }).n;
  }
}

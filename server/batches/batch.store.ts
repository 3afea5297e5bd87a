/**
 * Batches in SQLite (`batches`, `batch_cells`): what a batch is (kind, base params, resolved axes,
 * window, state) and which job each cell is. A cell's status and outputs are its job's, read from
 * the job store; this table never copies them.
 */
import type { Db } from '../db/database.js';
import type { BatchAxis, BatchSummary, BatchWindow } from '../contracts/batches.contract.js';
import type { OutputRef } from '../contracts/jobs.contract.js';

export type BatchState = 'submitting' | 'running' | 'paused' | 'cancelled' | 'completed';

/** A batch as stored: what its summary says of it, and its base params, axes, state and creation time. */
export interface BatchRow extends Pick<BatchSummary, 'id' | 'owner_id' | 'name' | 'kind' | 'workflow_id' | 'preset_id' | 'window' | 'created_at'> {
  params: Record<string, unknown>;
  axes: BatchAxis[];
  state: BatchState;
  created_ms: number;
}

export interface CellRow {
  idx: number;
  prompt_id: string;
  values: Record<string, unknown>;
  coords: number[] | null;
}

/** A cell and its job (status `deleted` when the job was deleted from the history). */
export interface CellJob extends CellRow {
  status: string;
  engine_id: string | null;
  output: OutputRef | null;
  output_dir: string | null;
  duration: number | null;
}

/** A cell and its job as the join reads them: JSON text, and no status for a deleted job. */
interface RawCellJob extends Pick<CellJob, 'idx' | 'prompt_id' | 'engine_id' | 'output_dir' | 'duration'> {
  vals: string;
  coords: string | null;
  status: string | null;
  output: string | null;
}

interface RawBatch extends Omit<BatchRow, 'params' | 'axes' | 'window'> {
  params: string;
  axes: string;
  time_window: string | null;
}

export class BatchStore {
  private readonly insertStmt;
  private readonly cellStmt;
  private readonly getStmt;
  private readonly listStmt;
  private readonly stateStmt;
  private readonly ofPromptStmt;
  private readonly deleteStmt;
  private readonly cellJobsStmt;
  private readonly unfinishedStmt;

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO batches (id, owner_id, name, kind, workflow_id, preset_id, params, axes, time_window, state, created_ms, created_at)
       VALUES (@id, @owner_id, @name, @kind, @workflow_id, @preset_id, @params, @axes, @time_window, @state, @created_ms, @created_at)`,
    );
    this.cellStmt = db.prepare('INSERT INTO batch_cells (batch_id, idx, prompt_id, vals, coords) VALUES (?, ?, ?, ?, ?)');
    this.getStmt = db.prepare('SELECT * FROM batches WHERE id = ?');
    this.listStmt = db.prepare('SELECT * FROM batches ORDER BY created_ms DESC');
    this.stateStmt = db.prepare('UPDATE batches SET state = ? WHERE id = ?');
    this.ofPromptStmt = db.prepare('SELECT batch_id, idx FROM batch_cells WHERE prompt_id = ?');
    this.deleteStmt = db.prepare('DELETE FROM batches WHERE id = ?');
    this.cellJobsStmt = db.prepare(
      `SELECT c.idx, c.prompt_id, c.vals, c.coords, j.status, j.engine_id, j.output, j.output_dir, j.duration
       FROM batch_cells c LEFT JOIN jobs j ON j.prompt_id = c.prompt_id WHERE c.batch_id = ? ORDER BY c.idx`,
    );
    this.unfinishedStmt = db.prepare(
      "SELECT COUNT(*) AS n FROM batch_cells c JOIN jobs j ON j.prompt_id = c.prompt_id WHERE c.batch_id = ? AND j.status IN ('queued','running')",
    );
  }

  /** A new batch, before its cells (it is `submitting` while they are queued one by one). */
  insert(batch: BatchRow): void {
    this.insertStmt.run({ ...batch, params: JSON.stringify(batch.params), axes: JSON.stringify(batch.axes), time_window: batch.window ? JSON.stringify(batch.window) : null });
  }

  /** The cells of a batch whose jobs are queued, in one transaction. */
  addCells(batchId: string, cells: readonly CellRow[]): void {
    this.db.transaction(() => {
      for (const cell of cells) this.cellStmt.run(batchId, cell.idx, cell.prompt_id, JSON.stringify(cell.values), cell.coords ? JSON.stringify(cell.coords) : null);
    })();
  }

  /**
   * Each cell with its job's status, engine, output and duration: the `jobs` table read here,
   * read-only, in one join (a batch of 1 000 cells is one query, not 1 000).
   */
  cellJobs(id: string): CellJob[] {
    return (this.cellJobsStmt.all(id) as Array<RawCellJob>).map((c) => ({
      idx: c.idx,
      prompt_id: c.prompt_id,
      values: JSON.parse(c.vals) as Record<string, unknown>,
      coords: c.coords ? (JSON.parse(c.coords) as number[]) : null,
      status: c.status ?? 'deleted',
      engine_id: c.engine_id,
      output: c.output ? (JSON.parse(c.output) as OutputRef) : null,
      output_dir: c.output_dir,
      duration: c.duration,
    }));
  }

  /** The cell's job is now `promptId` (a retry of it). */
  repoint(batchId: string, idx: number, promptId: string): void {
    this.db.prepare('UPDATE batch_cells SET prompt_id = ? WHERE batch_id = ? AND idx = ?').run(promptId, batchId, idx);
  }

  /** How many of its cells' jobs are still queued or running. */
  unfinished(id: string): number {
    return (this.unfinishedStmt.get(id) as { n: number }).n;
  }

  get(id: string): BatchRow | null {
    const row = this.getStmt.get(id) as RawBatch | undefined;
    return row ? parse(row) : null;
  }

  list(): BatchRow[] {
    return (this.listStmt.all() as RawBatch[]).map(parse);
  }

  setState(id: string, state: BatchState): void {
    this.stateStmt.run(state, id);
  }

  /** The batch and cell a job is, if it is one. */
  cellOf(promptId: string): { batch_id: string; idx: number } | null {
    return (this.ofPromptStmt.get(promptId) as { batch_id: string; idx: number } | undefined) ?? null;
  }

  delete(id: string): void {
    this.deleteStmt.run(id);
  }
}

function parse(row: RawBatch): BatchRow {
  const { time_window, ...rest } = row;
  return { ...rest, params: JSON.parse(row.params) as Record<string, unknown>, axes: JSON.parse(row.axes) as BatchAxis[], window: time_window ? (JSON.parse(time_window) as BatchWindow) : null };
}

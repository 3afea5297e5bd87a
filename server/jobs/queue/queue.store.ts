/**
 * Studio's queue in SQLite (`job_queue`): one row per job Studio holds for an engine, waiting
 * (`engine_id` null, in `seq` order) or handed to an engine (`engine_id` set). A row goes when its
 * job finishes (the queue service removes it) or is deleted (foreign key cascade). The job's
 * status stays in `jobs`, owned by the job lifecycle; this table only says where the job is.
 */
import type { Db } from '../../db/database.js';
import type { ApiGraph } from '../../engine/engine-graph.js';

export interface QueueRow {
  prompt_id: string;
  /** Who queued it (fair share): `session:…`, `key:<address>`, `chat:<id>`… */
  submitter: string;
  seq: number;
  graph: ApiGraph;
  extra_data: Record<string, unknown>;
  engine_id: string | null;
  handed_ms: number | null;
  /** How often its engine went offline with it (failover). */
  failovers: number;
  /** The batch it is a cell of (the batch lane, `batch-lane.ts`); null for an interactive job. */
  batch_id: string | null;
  /** An admin moved it ahead (the urgent mark): later jobs' fair places do not pass it (`fair-share.ts`). */
  pinned: boolean;
}

/** A job to queue: what is submitted to the engine when its turn comes. */
export interface QueueEntry {
  submitter: string;
  graph: ApiGraph;
  extraData: Record<string, unknown>;
  /** The batch it is a cell of: it waits in the batch lane (`batch-lane.ts`). */
  batchId?: string;
}

type NewRow = Omit<QueueRow, 'seq' | 'engine_id' | 'handed_ms' | 'failovers' | 'pinned'>;

interface RawRow extends Omit<QueueRow, 'graph' | 'extra_data' | 'pinned'> {
  graph: string;
  extra_data: string;
  pinned: number;
}

export class QueueStore {
  private readonly getStmt;
  private readonly waitingStmt;
  private readonly handedStmt;
  private readonly setSeqStmt;
  private readonly handStmt;
  private readonly removeStmt;
  private readonly failoverStmt;
  private readonly appendStmt;
  private readonly pinStmt;

  constructor(private readonly db: Db) {
    this.getStmt = db.prepare('SELECT * FROM job_queue WHERE prompt_id = ?');
    this.waitingStmt = db.prepare('SELECT * FROM job_queue WHERE engine_id IS NULL ORDER BY seq');
    this.handedStmt = db.prepare('SELECT * FROM job_queue WHERE engine_id IS NOT NULL ORDER BY handed_ms');
    this.appendStmt = db.prepare(
      `INSERT INTO job_queue (prompt_id, submitter, seq, graph, extra_data, engine_id, handed_ms, batch_id)
       VALUES (@prompt_id, @submitter, (SELECT COALESCE(MAX(seq), -1) + 1 FROM job_queue), @graph, @extra_data, NULL, NULL, @batch_id)`,
    );
    this.setSeqStmt = db.prepare('UPDATE job_queue SET seq = ? WHERE prompt_id = ?');
    this.handStmt = db.prepare('UPDATE job_queue SET engine_id = ?, handed_ms = ? WHERE prompt_id = ?');
    this.removeStmt = db.prepare('DELETE FROM job_queue WHERE prompt_id = ?');
    this.failoverStmt = db.prepare('UPDATE job_queue SET engine_id = NULL, handed_ms = NULL, failovers = failovers + 1 WHERE prompt_id = ?');
    this.pinStmt = db.prepare('UPDATE job_queue SET pinned = 1 WHERE prompt_id = ?');
  }

  get(promptId: string): QueueRow | null {
    const row = this.getStmt.get(promptId) as RawRow | undefined;
    return row ? parse(row) : null;
  }

  /** Jobs waiting in Studio, next first. */
  waiting(): QueueRow[] {
    return (this.waitingStmt.all() as RawRow[]).map(parse);
  }

  /** Jobs handed to an engine, in the order they were handed. */
  handed(): QueueRow[] {
    return (this.handedStmt.all() as RawRow[]).map(parse);
  }

  /** Jobs whose engine went offline: waiting again, at the front of the line (in this order), one more failover each. */
  requeueFront(promptIds: readonly string[]): void {
    this.db.transaction(() => {
      const rest = this.waiting().map((r) => r.prompt_id).filter((id) => !promptIds.includes(id));
      for (const id of promptIds) this.failoverStmt.run(id);
      this.renumber([...promptIds, ...rest]);
    })();
  }

  /** Add a waiting job at `index` of the waiting order (renumbered in one transaction). */
  insertAt(row: NewRow, index: number): void {
    this.db.transaction(() => {
      const order = this.waiting().map((r) => r.prompt_id);
      this.append(row);
      order.splice(Math.max(0, Math.min(index, order.length)), 0, row.prompt_id);
      this.renumber(order);
    })();
  }

  /** Add a waiting job after every other (no renumbering: one statement whatever the length of the line). */
  append(row: NewRow): void {
    this.appendStmt.run({ prompt_id: row.prompt_id, submitter: row.submitter, graph: JSON.stringify(row.graph), extra_data: JSON.stringify(row.extra_data), batch_id: row.batch_id });
  }

  /** Move a waiting job into a batch's lane (a retried cell of the batch). */
  setBatch(promptId: string, batchId: string): void {
    this.db.prepare('UPDATE job_queue SET batch_id = ? WHERE prompt_id = ? AND engine_id IS NULL').run(batchId, promptId);
  }

  /** Put these waiting jobs in this order among the places they hold (the others keep theirs). */
  orderWithin(promptIds: readonly string[]): void {
    this.db.transaction(() => {
      const rows = promptIds.map((id) => this.get(id)).filter((row): row is QueueRow => row !== null && row.engine_id === null);
      const seqs = rows.map((row) => row.seq).sort((a, b) => a - b);
      rows.forEach((row, i) => this.setSeqStmt.run(seqs[i], row.prompt_id));
    })();
  }

  /** Move a waiting job to `position` of the waiting order (clamped to the end); moved ahead, it is pinned. */
  move(promptId: string, position: number): void {
    this.db.transaction(() => {
      const waiting = this.waiting().map((r) => r.prompt_id);
      const order = waiting.filter((id) => id !== promptId);
      const at = Math.min(position, order.length);
      order.splice(at, 0, promptId);
      if (at < waiting.indexOf(promptId)) this.pinStmt.run(promptId);
      this.renumber(order);
    })();
  }

  /** The job went to `engineId` (null: back to waiting, keeping its place). */
  hand(promptId: string, engineId: string | null, now = Date.now()): void {
    this.handStmt.run(engineId, engineId === null ? null : now, promptId);
  }

  remove(promptId: string): void {
    this.removeStmt.run(promptId);
  }

  private renumber(order: readonly string[]): void {
    order.forEach((id, i) => this.setSeqStmt.run(i, id));
  }
}

/**
 * The graph and extra data are parsed when first read: a round of the queue reads every waiting
 * row but looks at the graphs of only the few it may hand over (a batch of 1 000 waits mostly unread).
 */
function parse(row: RawRow): QueueRow {
  const { graph, extra_data, pinned, ...rest } = row;
  let parsedGraph: ApiGraph | undefined;
  let parsedExtra: Record<string, unknown> | undefined;
  return {
    ...rest,
    pinned: pinned === 1,
    get graph() {
      return (parsedGraph ??= JSON.parse(graph) as ApiGraph);
    },
    get extra_data() {
      return (parsedExtra ??= JSON.parse(extra_data) as Record<string, unknown>);
    },
  };
}

/**
 * The batch lane of Studio's queue (issue 45). A job of a batch waits behind every interactive job
 * (placed after them, appended without renumbering the line: a batch of 1 000 is queued in one
 * pass) and starts only when
 * - no interactive job waits that an online engine could run (a person's single job goes first;
 *   one that no engine can run does not hold a batch back for ever),
 * - its batch lets it (not paused, not cancelled, not still being submitted, inside its window:
 *   the batches capability answers through `BatchGate`, bound once it is built), and
 * - the engine holds nothing else: a batch job is never prefetched, so an interactive job that
 *   arrives mid-batch starts before the next batch job, not after the one already in the engine's queue.
 */
import type { ApiGraph } from '../../engine/engine-graph.js';
import { fairIndex } from './fair-share.js';
import type { QueueEngine } from './queue-engine.js';
import type { QueueEntry, QueueRow, QueueStore } from './queue.store.js';

/** The batches capability's say on its own jobs. */
export interface BatchGate {
  /** True when a job of this batch may start now. */
  mayStart(batchId: string): boolean;
}

/** One pump round's view of the lane. */
export interface LaneRound {
  startable(row: QueueRow): boolean;
  /** The engines among `able` a row may go to (a batch job: only an idle one). */
  fit<E extends { id: string }>(row: QueueRow, able: E[], held: ReadonlyMap<string, number>): E[];
}

export class BatchLane {
  private gate: BatchGate | null = null;

  /** @param store the queue's store, read when used (the queue builds its lane before its own fields are set). */
  constructor(private readonly store: () => QueueStore) {}

  /** A waiting job becomes a job of this batch (a retry of one of its cells, after a restart or by hand). */
  adopt(promptId: string, batchId: string): void {
    this.store().setBatch(promptId, batchId);
  }

  /** A batch's waiting jobs in its cells' order (they were queued a few at a time and may have landed out of it). */
  orderWithin(promptIds: readonly string[]): void {
    this.store().orderWithin(promptIds);
  }

  bind(gate: BatchGate): void {
    this.gate = gate;
  }

  /**
   * Put a new job in the waiting line: an interactive one at its fair place among the interactive
   * ones, a batch job last. True when a hand-over round is due: not for a batch job, which cannot
   * start while its batch is still being submitted (the batch wakes the queue once it is).
   */
  enqueue(promptId: string, entry: QueueEntry): boolean {
    const store = this.store();
    const row = { prompt_id: promptId, submitter: entry.submitter, graph: entry.graph, extra_data: entry.extraData, batch_id: entry.batchId ?? null };
    if (entry.batchId) {
      store.append(row);
      return false;
    }
    const waiting = store.waiting();
    const interactive = waiting.filter((r) => r.batch_id === null);
    const at = fairIndex(interactive, entry.submitter, store.handed().filter((r) => r.batch_id === null));
    const next = interactive[at];
    const last = interactive.at(-1);
    store.insertAt(row, next ? waiting.indexOf(next) : last ? waiting.indexOf(last) + 1 : 0);
    return true;
  }

  /** The lane for one round of handing jobs to engines. */
  round(waiting: readonly QueueRow[], engines: readonly QueueEngine[], canRun: (engine: QueueEngine, graph: ApiGraph) => boolean): LaneRound {
    const online = engines.filter((e) => e.online());
    // One engine: the check at execute was made against it.
    const runnable = (row: QueueRow) => online.some((e) => engines.length === 1 || canRun(e, row.graph));
    const interactiveWaits = waiting.some((r) => r.batch_id === null && runnable(r));
    const verdicts = new Map<string, boolean>();
    const batchMay = (id: string) => {
      let may = verdicts.get(id);
      if (may === undefined) verdicts.set(id, (may = this.gate?.mayStart(id) ?? false));
      return may;
    };
    return {
      startable: (row) => row.batch_id === null || (!interactiveWaits && batchMay(row.batch_id)),
      fit: (row, able, held) => (row.batch_id === null ? able : able.filter((e) => (held.get(e.id) ?? 0) === 0)),
    };
  }
}

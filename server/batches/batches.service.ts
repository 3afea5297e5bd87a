/**
 * Batches (issue 45): one form, many jobs. A create plans every cell (`batch-plan.ts`: each value
 * checked, a 400 naming the axis, row or column, a 413 past the cap) before anything is queued,
 * then queues one job per cell through the runner (allow-lists, quotas and the engine's check as
 * for any job) in the queue's batch lane. While it is `submitting` none of its jobs starts; a cell
 * the runner refuses takes the ones queued before it back out (nothing of a refused batch stays).
 * Which cells may start is this service's answer to the lane (`mayStart`): not paused, not
 * cancelled, inside its window. A batch belongs to its maker: members see their own, admins all.
 */
import crypto from 'node:crypto';
import { DomainError } from '../domain-error.js';
import { mayTouch, OWNER_ACTOR, type Actor } from '../http/actor.js';
import { ownerAudience, type WsHub } from '../http/ws-hub.js';
import type { EventBus } from '../events/event-bus.js';
import type { Severity } from '../contracts/events.contract.js';
import type { Logger } from '../logging.js';
import type { JobLifecycle } from '../jobs/job-lifecycle.js';
import type { JobQueries } from '../jobs/job-queries.service.js';
import type { JobQueueService } from '../jobs/queue/job-queue.service.js';
import type { RunnerService } from '../jobs/runner.service.js';
import type { WorkflowService } from '../workflows/workflow.service.js';
import type { PresetsService } from '../presets/presets.service.js';
import { localStamp } from '../time.js';
import type { BatchCreateBody, BatchCreated, BatchDetail, BatchStatus, BatchSummary } from '../contracts/batches.contract.js';
import { planBatch } from './batch-plan.js';
import type { BatchRow, BatchState, BatchStore, CellJob } from './batch.store.js';
import { inWindow } from './batch-window.js';
import { cellOutputs } from './batch-files.js';

const FINISHED = new Set(['completed', 'error', 'stalled', 'cancelled', 'deleted']);
/** Cells queued at once while a batch is made. */
const SUBMITTERS = 3;

export interface BatchesDeps {
  store: BatchStore;
  runner: Pick<RunnerService, 'execute'>;
  workflows: Pick<WorkflowService, 'definition'>;
  presets: Pick<PresetsService, 'get'>;
  lifecycle: Pick<JobLifecycle, 'subscribe'>;
  /** Cancels a job wherever it is; its batch lane; a hand-over round (a resumed batch's jobs may go now). */
  queue: Pick<JobQueueService, 'cancel' | 'lane' | 'schedule'>;
  /** Deletes job records and folders (a refused batch's jobs). */
  queries: Pick<JobQueries, 'delete'>;
  outputsDir: string;
  hub: WsHub;
  events: EventBus;
  logger: Logger;
  maxCells: number;
  /** QUEUE_RESUME_AFTER_RESTART: cells a restart stalled come back as retries (a batch then does not end at boot). */
  resumesStalled: boolean;
  now?: () => number;
}

export class BatchesService {
  private readonly now: () => number;
  private off: (() => void) | null = null;

  constructor(private readonly deps: BatchesDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** Follow job changes: each cell's change goes to the WebSocket, the last one completes its batch. */
  watch(): void {
    // A batch cut off while its cells were queued (Studio stopped): its jobs were stalled with the queue; it ends here.
    for (const b of this.deps.store.list()) if (b.state === 'submitting') this.deps.store.setState(b.id, 'cancelled');
    this.off = this.deps.lifecycle.subscribe((change) => {
      if (change.type === 'job.deleted') return;
      if (change.type === 'job.queued' && change.job.retry_of) this.retried(change.job.prompt_id, change.job.retry_of);
      const cell = this.deps.store.cellOf(change.job.prompt_id);
      if (!cell) return;
      const batch = this.deps.store.get(cell.batch_id);
      if (!batch) return;
      this.deps.hub.broadcast('batch.cell', { batch_id: batch.id, index: cell.idx, prompt_id: change.job.prompt_id, status: change.job.status }, ownerAudience(batch.owner_id));
      if (FINISHED.has(change.job.status)) this.completeIfDone(batch);
    });
    // Cells stalled at boot (the queue stalls what a crash left waiting before this module listens)
    // and not retried: a batch with nothing left to run ends now, or it would say "running" for ever.
    if (!this.deps.resumesStalled) for (const b of this.deps.store.list()) this.completeIfDone(b);
  }

  private completeIfDone(batch: BatchRow): void {
    if ((batch.state === 'running' || batch.state === 'paused') && this.deps.store.unfinished(batch.id) === 0) this.complete(batch);
  }

  /**
   * A retry of a cell that did not complete (stalled by a restart and resumed, failed, cancelled)
   * takes the cell's place, waits in the batch's lane, and a batch that had finished runs again
   * for it. A retry of a completed cell, or of a cancelled batch's, is a job of its own.
   */
  private retried(promptId: string, retryOf: string): void {
    const cell = this.deps.store.cellOf(retryOf);
    const batch = cell ? this.deps.store.get(cell.batch_id) : null;
    if (!cell || !batch || batch.state === 'cancelled' || batch.state === 'submitting') return;
    if (this.deps.store.cellJobs(batch.id).find((c) => c.idx === cell.idx)?.status === 'completed') return;
    this.deps.store.repoint(batch.id, cell.idx, promptId);
    this.deps.queue.lane.adopt(promptId, batch.id);
    // A finished batch runs again for its retried cell (and completes again after it).
    if (batch.state === 'completed') this.deps.store.setState(batch.id, 'running');
  }

  stop(): void {
    this.off?.();
    this.off = null;
  }

  /** The lane's question: may a job of this batch start now? */
  mayStart(batchId: string): boolean {
    const batch = this.deps.store.get(batchId);
    return batch !== null && batch.state === 'running' && inWindow(batch.window, this.now());
  }

  async create(body: BatchCreateBody, actor: Actor, submitter: string): Promise<BatchCreated> {
    let workflowId = body.workflow_id ?? '';
    let base = { ...body.params };
    if (body.preset_id) {
      const preset = await this.deps.presets.get(body.preset_id, actor);
      workflowId = preset.workflow.workflow_id;
      base = { ...preset.workflow.params, ...body.params };
    }
    const definition = await this.deps.workflows.definition(workflowId);
    const plan = planBatch(definition.manifest.inputs, base, body, this.deps.maxCells);
    const created = this.now();
    const batch: BatchRow = {
      id: crypto.randomUUID(),
      owner_id: actor.userId,
      name: body.name?.trim() || `${definition.manifest.name} ${body.kind} of ${plan.cells.length}`,
      kind: body.kind,
      workflow_id: workflowId,
      preset_id: body.preset_id ?? null,
      params: base,
      axes: plan.axes,
      window: body.window ?? null,
      state: 'submitting',
      created_ms: created,
      created_at: localStamp(new Date(created)),
    };
    this.deps.store.insert(batch);
    const origin = { presetId: body.preset_id, submitter, ownerId: actor.userId, actor, countsFor: actor.userId, batchId: batch.id };
    const ids: Array<string | undefined> = [];
    const refused: { first: { idx: number; err: unknown } | null } = { first: null };
    // The first refused cell in the batch's order is the one named (cells finish out of order).
    const refuse = (idx: number, err: unknown) => {
      if (!refused.first || idx < refused.first.idx) refused.first = { idx, err };
    };
    let next = 0;
    // A few cells at a time: each waits on the workflow's files and the engine's check, which overlap.
    const worker = async () => {
      while (!refused.first && next < plan.cells.length) {
        const idx = next++;
        const cell = plan.cells[idx]!;
        try {
          ids[idx] = (await this.deps.runner.execute(workflowId, cell.params, undefined, origin)).prompt_id;
        } catch (err) {
          refuse(idx, err);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(SUBMITTERS, plan.cells.length) }, worker));
    const queuedIds = ids.filter((id): id is string => id !== undefined);
    if (refused.first) {
      const { idx, err } = refused.first;
      await this.discard(batch, queuedIds, actor);
      throw cellError(err, body.kind === 'grid' ? `cell ${idx + 1} (${describe(plan.cells[idx]!.values)})` : `row ${body.kind === 'csv' ? idx + 2 : idx + 1}`);
    }
    this.deps.store.addCells(batch.id, plan.cells.map((cell, idx) => ({ idx, prompt_id: ids[idx]!, values: cell.values, coords: cell.coords })));
    this.deps.queue.lane.orderWithin(queuedIds);
    const queued = plan.cells.map((cell, idx) => ({ values: cell.values, prompt_id: ids[idx]! }));
    const summary = this.change(batch, 'running', 'batch.created', `Batch made: ${batch.name} (${queued.length} jobs)`, { kind: batch.kind, cells: queued.length });
    this.deps.queue.schedule();
    return { id: batch.id, status: summary.status, job_ids: queued.map((q) => q.prompt_id), cells: queued };
  }

  list(actor: Actor): BatchSummary[] {
    return this.deps.store
      .list()
      .filter((b) => mayTouch(actor, b.owner_id))
      .map((b) => this.summary(b));
  }

  /** A batch `actor` may see (another person's answers as a missing one). */
  batch(id: string, actor: Actor): BatchRow {
    const batch = this.deps.store.get(id);
    if (!batch || batch.state === 'submitting' || !mayTouch(actor, batch.owner_id)) throw new DomainError('not_found', `Batch not found: ${id}`);
    return batch;
  }

  detail(id: string, actor: Actor): BatchDetail {
    const batch = this.batch(id, actor);
    const cells = this.deps.store.cellJobs(id);
    const summary = this.summary(batch, cells);
    const engines = [...new Set(cells.filter((c) => c.status === 'running' && c.engine_id).map((c) => c.engine_id!))];
    return {
      ...summary,
      axes: batch.axes,
      cells: cells.map((c) => ({ index: c.idx, values: c.values, coords: c.coords, prompt_id: c.prompt_id, status: c.status, engine_id: c.engine_id, outputs: c.status === 'completed' ? cellOutputs(this.deps.outputsDir, c) : [], output_dir: c.output_dir })),
      engines,
      eta_s: eta(cells, summary, engines.length),
    };
  }

  /** Cells with their jobs, for the exports. */
  cells(id: string, actor: Actor): { batch: BatchRow; cells: CellJob[] } {
    const batch = this.batch(id, actor);
    return { batch, cells: this.deps.store.cellJobs(id) };
  }

  pause(id: string, actor: Actor): BatchSummary {
    const batch = this.batch(id, actor);
    if (batch.state !== 'running') throw new DomainError('conflict', `Batch ${id} is ${batch.state}; only a running batch can be paused`);
    return this.change(batch, 'paused', 'batch.paused', `Batch paused: ${batch.name}`, {});
  }

  resume(id: string, actor: Actor): BatchSummary {
    const batch = this.batch(id, actor);
    if (batch.state !== 'paused') throw new DomainError('conflict', `Batch ${id} is ${batch.state}; only a paused batch can be resumed`);
    const summary = this.change(batch, 'running', 'batch.resumed', `Batch resumed: ${batch.name}`, {});
    this.deps.queue.schedule();
    return summary;
  }

  /** Cancel every unfinished cell (waiting first: none of them may start meanwhile). */
  async cancel(id: string, actor: Actor): Promise<BatchSummary> {
    const batch = this.batch(id, actor);
    if (batch.state === 'cancelled' || batch.state === 'completed') throw new DomainError('conflict', `Batch ${id} is already ${batch.state}`);
    this.deps.store.setState(id, 'cancelled');
    let cancelled = 0;
    for (const cell of this.deps.store.cellJobs(id)) {
      if (FINISHED.has(cell.status)) continue;
      await this.deps.queue.cancel(cell.prompt_id, actor).then(
        () => cancelled++,
        (err: unknown) => this.deps.logger.warn(`batch ${id}: cell ${cell.idx} could not be cancelled`, err),
      );
    }
    return this.change({ ...batch, state: 'cancelled' }, 'cancelled', 'batch.cancelled', `Batch cancelled: ${batch.name} (${cancelled} jobs)`, { cancelled });
  }

  /** The batch's new state, stored, logged as `type` and pushed to its owner's clients. */
  private change(batch: BatchRow, state: BatchState, type: `batch.${'created' | 'paused' | 'resumed' | 'cancelled' | 'completed'}`, message: string, data: Record<string, unknown>, severity: Severity = 'info'): BatchSummary {
    this.deps.store.setState(batch.id, state);
    const summary = this.summary({ ...batch, state });
    this.deps.events.emit(type, severity, message, { batch_id: batch.id, user_id: batch.owner_id, ...data });
    this.deps.hub.broadcast('batch.state', summary, ownerAudience(batch.owner_id));
    return summary;
  }

  private complete(batch: BatchRow): void {
    const { done, failed } = this.summary(batch);
    this.change(batch, 'completed', 'batch.completed', `Batch completed: ${batch.name} (${done} done, ${failed} failed)`, { done, failed }, failed ? 'warning' : 'success');
  }

  /** A refused batch leaves nothing: its queued jobs are cancelled and deleted, the batch row too. */
  private async discard(batch: BatchRow, promptIds: readonly string[], actor: Actor): Promise<void> {
    for (const id of promptIds) await this.deps.queue.cancel(id, actor).catch(() => undefined);
    await this.deps.queries.delete(promptIds, OWNER_ACTOR).catch((err: unknown) => this.deps.logger.warn(`batch ${batch.id}: its refused jobs could not be deleted`, err));
    this.deps.store.delete(batch.id);
  }

  private summary(batch: BatchRow, cells: readonly CellJob[] = this.deps.store.cellJobs(batch.id)): BatchSummary {
    const count = (pred: (s: string) => boolean) => cells.filter((c) => pred(c.status)).length;
    return {
      id: batch.id,
      name: batch.name,
      kind: batch.kind,
      status: statusOf(batch, this.now(), cells),
      workflow_id: batch.workflow_id,
      preset_id: batch.preset_id,
      owner_id: batch.owner_id,
      created_at: batch.created_at,
      window: batch.window,
      total: cells.length,
      done: count((s) => s === 'completed'),
      failed: count((s) => s === 'error' || s === 'stalled' || s === 'deleted'),
      running: count((s) => s === 'running'),
    };
  }
}

function statusOf(batch: BatchRow, now: number, cells: readonly CellJob[]): BatchStatus {
  if (batch.state === 'submitting') return 'running';
  // Every cell finished while no one listened (stalled at a restart, not retried): done all the same.
  if ((batch.state === 'running' || batch.state === 'paused') && cells.length > 0 && cells.every((c) => FINISHED.has(c.status))) return 'completed';
  if (batch.state !== 'running') return batch.state;
  return inWindow(batch.window, now) ? 'running' : 'waiting';
}

/** Remaining cells × the mean duration of its finished ones, shared by the engines at work (at least one). */
function eta(cells: readonly CellJob[], summary: BatchSummary, engines: number): number | null {
  const timed = cells.filter((c) => c.status === 'completed' && c.duration !== null);
  const left = cells.filter((c) => !FINISHED.has(c.status)).length;
  if (left === 0) return 0;
  if (timed.length === 0 || summary.status !== 'running') return null;
  const mean = timed.reduce((s, c) => s + c.duration!, 0) / timed.length;
  return Math.round((left * mean) / Math.max(1, engines));
}

function describe(values: Record<string, unknown>): string {
  return Object.entries(values)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v.slice(0, 40) : JSON.stringify(v)}`)
    .join(', ');
}

/** The runner's refusal of one cell, said of that cell (same kind, so the same status). */
function cellError(err: unknown, where: string): unknown {
  if (!(err instanceof DomainError)) return err;
  return new DomainError(err.kind, `${where}: ${err.message}`, err.extra, err.relayedStatus);
}

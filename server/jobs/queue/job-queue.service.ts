/**
 * Studio's own queue: jobs wait here (SQLite, `queue.store.ts`) and are handed to an engine the
 * moment it has room. Each engine holds at most one running job and one prefetched (submitted,
 * waiting in the engine's own queue), so it never idles between jobs and no job is bound early to
 * a busy engine. The job's status stays the lifecycle's (`queued` while waiting or prefetched):
 * this service only places jobs, cancels them (through the lifecycle) and reorders the waiting.
 */
import { DomainError } from '../../domain-error.js';
import { mayTouch, OWNER_ACTOR, type Actor } from '../../http/actor.js';
import type { EventBus } from '../../events/event-bus.js';
import type { JobLifecycle } from '../job-lifecycle.js';
import type { JobStore } from '../job.store.js';
import type { JobRecord } from '../../contracts/jobs.contract.js';
import type { QueueState } from '../../contracts/queue.contract.js';
import type { Logger } from '../../logging.js';
import type { SettingsStore } from '../../db/settings.store.js';
import type { ApiGraph } from '../../engine/engine-graph.js';
import { checkpointOf, missingFor } from '../../engine/pool/engine-needs.js';
import { EngineStatsBook } from './engine-stats.js';
import { BatchLane } from './batch-lane.js';
import { failoverJobs, LostCopies } from './failover.js';
import { stopOnEngine, submitTo } from './hand-over.js';
import type { QueueEntry, QueueRow, QueueStore } from './queue.store.js';
import { chooseEngine } from './routing.js';
import { evictStrays } from './strays.js';
import { ENGINE_SLOTS, type QueueEngine } from './queue-engine.js';

const PAUSED_KEY = 'queue_paused';

export interface JobQueueDeps {
  store: QueueStore;
  jobs: JobStore;
  lifecycle: JobLifecycle;
  settings: SettingsStore;
  /** The engines of the pool, as they are now. */
  engines: () => QueueEngine[];
  /** Studio's input folder: where an input is read from to upload it to a remote engine. */
  inputDir: string;
  events: EventBus;
  logger: Logger;
}

export class JobQueueService {
  private pumping = false;
  private again = false;
  /** Set by stop(): a round still scheduled must not touch the database Studio is closing. */
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;
  private off: (() => void) | null = null;
  /** Jobs whose submit to an engine is in flight: the engine may not list them yet. */
  private readonly handing = new Set<string>();
  /** Engines back online whose queue is being cleared of jobs they no longer own: nothing is handed to them meanwhile. */
  private readonly settling = new Set<string>();
  /** The jobs failover took from each engine: its copies are checked when it answers again. */
  private readonly lost = new LostCopies();
  /** Jobs done, speed, last checkpoint and idle time of each engine (routing, the Engines page). */
  readonly stats = new EngineStatsBook();
  /** Where batch jobs wait and when they may start; the batches capability binds its gate to it. */
  readonly lane = new BatchLane(() => this.deps.store);

  constructor(private readonly deps: JobQueueDeps) {}

  /**
   * Boot, before the engine is reconciled: jobs left waiting by the previous run become `stalled`
   * (the spec's restart rule; jobs handed to an engine are reconciled with it instead), and the
   * queue follows job changes from here on.
   */
  recover(): void {
    const stalled: string[] = [];
    for (const row of this.deps.store.waiting()) {
      const result = this.deps.lifecycle.move(row.prompt_id, { to: 'stalled', reason: { cause: 'restart' } });
      this.deps.store.remove(row.prompt_id);
      if (result.ok) stalled.push(row.prompt_id);
    }
    // Handed rows of jobs that finished while Studio was down (the reconciler settles the others).
    for (const row of this.deps.store.handed()) {
      const job = this.deps.jobs.get(row.prompt_id);
      if (!job || (job.status !== 'queued' && job.status !== 'running')) this.deps.store.remove(row.prompt_id);
    }
    if (stalled.length) {
      this.deps.events.emit('system.startup', 'warning', `Studio restarted: ${stalled.length} job(s) waiting in its queue marked stalled`, { stalled });
    }
    this.off = this.deps.lifecycle.subscribe((change) => {
      if (change.type === 'job.deleted') {
        this.schedule();
        return;
      }
      if (change.type === 'job.queued' || change.type === 'job.requeued') return;
      if (change.type === 'job.started') {
        this.stats.jobStarted(change.job.prompt_id);
        return;
      }
      // Finished in any way: the job no longer holds a place (its engine slot is free).
      const row = this.deps.store.get(change.job.prompt_id);
      this.deps.store.remove(change.job.prompt_id);
      if (row?.engine_id) {
        const held = this.deps.store.handed().filter((r) => r.engine_id === row.engine_id).length;
        this.stats.jobEnded(row.engine_id, row.prompt_id, row.graph, change.type === 'job.completed', held);
      }
      this.schedule();
    });
  }

  /** Begin handing jobs to the engines (and retrying a hand-over that failed, engine down, every second). */
  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => this.schedule(), 1_000);
    this.timer.unref();
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    this.off?.();
    this.off = null;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Put a recorded job in the queue, at its fair place (a batch's job in the batch lane). Called inside the lifecycle's submit. */
  enqueue(promptId: string, entry: QueueEntry): void {
    if (this.lane.enqueue(promptId, entry)) this.schedule();
  }

  /**
   * True while the engine cannot know the job yet: waiting in Studio, or its submit in flight (the
   * reconciler must not take a job the engine has not listed yet for one it lost).
   */
  isWaiting(promptId: string): boolean {
    if (this.handing.has(promptId)) return true;
    const row = this.deps.store.get(promptId);
    return row !== null && row.engine_id === null;
  }

  get paused(): boolean {
    return this.deps.settings.get(PAUSED_KEY) === 'true';
  }

  /** While paused no job is handed to any engine; the ones on engines finish. Kept across restarts. */
  setPaused(paused: boolean): QueueState {
    this.deps.settings.set(PAUSED_KEY, String(paused));
    this.deps.events.emit(paused ? 'queue.paused' : 'queue.resumed', 'info', paused ? 'Queue paused' : 'Queue resumed', {});
    if (!paused) this.schedule();
    return this.state();
  }

  state(): QueueState {
    const handed = this.deps.store.handed();
    const engines = this.deps.engines().map((engine) => {
      const mine = handed.filter((r) => r.engine_id === engine.id).map((r) => this.deps.jobs.get(r.prompt_id));
      const running = mine.find((j) => j?.status === 'running')?.prompt_id ?? null;
      return { id: engine.id, running, prefetched: mine.filter((j) => j?.status === 'queued').map((j) => j!.prompt_id) };
    });
    return { paused: this.paused, waiting: this.deps.store.waiting().length, running: engines.filter((e) => e.running !== null).length, engines };
  }

  /**
   * Active jobs in queue order: on an engine (running first, then prefetched), then waiting (next
   * first), then any active job the queue does not hold (submitted before Studio had its queue).
   */
  order(active: readonly JobRecord[]): Array<JobRecord & { engine_id: string | null; position: number | null }> {
    const byId = new Map(active.map((j) => [j.prompt_id, j]));
    const out: Array<JobRecord & { engine_id: string | null; position: number | null }> = [];
    const take = (id: string, engineId: string | null, position: number | null) => {
      const job = byId.get(id);
      if (!job) return;
      byId.delete(id);
      out.push({ ...job, engine_id: engineId, position });
    };
    const handed = this.deps.store.handed();
    for (const row of handed) if (byId.get(row.prompt_id)?.status === 'running') take(row.prompt_id, row.engine_id, null);
    for (const row of handed) take(row.prompt_id, row.engine_id, null);
    this.deps.store.waiting().forEach((row, i) => take(row.prompt_id, null, i));
    for (const job of [...byId.values()]) take(job.prompt_id, this.deps.engines()[0]?.id ?? null, null);
    return out;
  }

  /**
   * Cancel a job wherever it is: waiting → it leaves the queue; prefetched → deleted from its
   * engine's queue; running → interrupted on its engine. Its folder keeps what was produced.
   */
  async cancel(promptId: string, actor: Actor = OWNER_ACTOR): Promise<JobRecord> {
    const job = this.deps.jobs.get(promptId);
    if (!job || !mayTouch(actor, job.owner_id)) throw new DomainError('not_found', `Job not found: ${promptId}`);
    if (job.status !== 'queued' && job.status !== 'running') throw new DomainError('conflict', `Job ${promptId} already finished (${job.status})`);
    await this.takeOff(promptId);
    const result = this.deps.lifecycle.move(promptId, { to: 'cancelled' });
    // Refused: the record as it is now says whether the job is gone or could not be cancelled.
    if (!result.ok) throw result.job ? new DomainError('conflict', `Job ${promptId} could not be cancelled: ${result.refused}`) : new DomainError('not_found', `Job not found: ${promptId}`);
    return result.job;
  }

  /** Cancel every job still waiting in Studio (not the ones on engines) that `actor` may touch; how many were. */
  clear(actor: Actor = OWNER_ACTOR): number {
    let cancelled = 0;
    for (const row of this.deps.store.waiting()) {
      if (mayTouch(actor, this.deps.jobs.get(row.prompt_id)?.owner_id) && this.deps.lifecycle.move(row.prompt_id, { to: 'cancelled' }).ok) cancelled++;
    }
    return cancelled;
  }

  /** Move a waiting job to `position` among the waiting (0 = next); clamped to the end. Moved ahead is the urgent mark (pinned). */
  move(promptId: string, position: number, actor: Actor = OWNER_ACTOR): QueueState {
    const job = this.deps.jobs.get(promptId);
    if (!job || !mayTouch(actor, job.owner_id)) throw new DomainError('not_found', `Job not found: ${promptId}`);
    if (this.deps.store.get(promptId)?.engine_id !== null || job.status !== 'queued') throw new DomainError('conflict', `Job ${promptId} is no longer waiting (${job.status}${job.status === 'queued' ? ', on an engine' : ''})`);
    this.deps.store.move(promptId, position);
    return this.state();
  }

  /** Run a hand-over round soon (coalesced: one round at a time, another if asked meanwhile). */
  schedule(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    setImmediate(() => {
      // A round cut off by stop() (the database closes under it) is expected; others are logged.
      void this.pump()
        .catch((err: unknown) => {
          if (!this.stopped) this.deps.logger.error('the queue could not hand jobs to the engines', err);
        })
        .finally(() => {
          this.pumping = false;
          if (this.again) {
            this.again = false;
            this.schedule();
          }
        });
    });
  }

  /**
   * One round: while an engine has room, hand it the first waiting job it can run (a job no free
   * engine can run waits; the ones behind it may go), choosing among the free engines that can
   * run a job with `chooseEngine`.
   */
  private async pump(): Promise<void> {
    const unreachable = new Set<string>();
    for (;;) {
      // Stopped first: a round still scheduled at stop() must not read the database Studio is closing.
      if (this.stopped || this.paused) return;
      const waiting = this.deps.store.waiting();
      if (waiting.length === 0) return;
      const held = this.heldByEngine();
      const engines = this.deps.engines();
      const free = engines.filter((e) => e.online() && !unreachable.has(e.id) && !this.settling.has(e.id) && (held.get(e.id) ?? 0) < ENGINE_SLOTS);
      if (free.length === 0) return;
      let pick: { row: QueueRow; engine: QueueEngine } | null = null;
      const lane = this.lane.round(waiting, engines, (e, graph) => this.canRun(e, graph));
      for (const row of waiting) {
        if (!lane.startable(row)) continue;
        // One engine: the check at execute was made against it; nothing to choose.
        const able = lane.fit(row, engines.length === 1 ? free : free.filter((e) => this.canRun(e, row.graph)), held);
        const candidates = able.map((e) => ({ ...this.stats.of(e.id), id: e.id, held: held.get(e.id) ?? 0, engine: e }));
        const best = chooseEngine(candidates, checkpointOf(row.graph));
        if (best) {
          pick = { row, engine: best.engine };
          break;
        }
      }
      if (!pick) return;
      if (!(await this.handOver(pick.engine, pick.row))) unreachable.add(pick.engine.id);
    }
  }

  /** True when the engine has every node type and model file of the graph (by its last object_info). */
  private canRun(engine: QueueEngine, graph: ApiGraph): boolean {
    const info = engine.objectInfo();
    return info !== null && missingFor(graph, info).length === 0;
  }

  private heldByEngine(): Map<string, number> {
    const held = new Map<string, number>();
    for (const row of this.deps.store.handed()) held.set(row.engine_id!, (held.get(row.engine_id!) ?? 0) + 1);
    return held;
  }

  /** Submit one job to an engine; false when the engine could not take it (the job stays first in line). */
  private async handOver(engine: QueueEngine, row: QueueRow): Promise<boolean> {
    const id = row.prompt_id;
    this.handing.add(id);
    this.deps.store.hand(id, engine.id);
    this.deps.lifecycle.handedTo(id, engine.id);
    try {
      const result = await submitTo(engine, row, { inputDir: this.deps.inputDir, logger: this.deps.logger, stillQueued: () => this.deps.store.get(id) !== null });
      if (result.kind === 'failed') {
        if (this.deps.store.get(id)) {
          this.deps.store.hand(id, null);
          this.deps.lifecycle.handedTo(id, null);
        }
        return false;
      }
      if (result.kind === 'refused') {
        // Valid when queued, refused now (a model was removed meanwhile): the job fails with the engine's words.
        this.deps.lifecycle.move(id, { to: 'error', error: result.message });
        this.deps.store.remove(id);
        return true;
      }
      // Cancelled while the submit was in flight: take it back off the engine.
      const now = this.deps.jobs.get(id);
      if (result.kind === 'submitted' && (!now || (now.status !== 'queued' && now.status !== 'running'))) await stopOnEngine(engine, id, this.deps.logger);
      return true;
    } finally {
      this.handing.delete(id);
    }
  }

  /** An engine stopped answering: its jobs go back to the front of the queue for another engine (`failover.ts`). */
  failover(engineId: string): void {
    if (this.stopped) return;
    const taken = failoverJobs(engineId, this.deps);
    const engine = this.deps.engines().find((e) => e.id === engineId);
    // Cancelled on it before the next round hands them on (a frozen engine reads it when it runs again).
    if (engine && taken.length) this.lost.taken(engine, taken, this.deps.logger);
    this.schedule();
  }

  /**
   * An engine answers again: the jobs failover took from it (and any other Studio job it holds
   * but no longer owns) are taken off it, so none runs twice (`strays.ts`). Resolves with their ids.
   */
  async engineBack(engineId: string): Promise<string[]> {
    const engine = this.deps.engines().find((e) => e.id === engineId);
    if (!engine || this.stopped || this.settling.has(engineId)) return [];
    // A job handed to it again before its old copy is gone would be in its queue twice.
    this.settling.add(engineId);
    let strays: string[];
    try {
      strays = await evictStrays(engine, this.deps);
      await this.lost.check(engine, strays, { jobs: this.deps.jobs, events: this.deps.events, engineOf: (id) => this.engineOf(id) });
    } finally {
      this.settling.delete(engineId);
      this.schedule();
    }
    if (strays.length) {
      this.deps.events.emit('engine.strays_removed', 'warning', `Engine ${engine.name} came back with ${strays.length} job(s) Studio had given to another engine: taken off it`, { engine_id: engineId, prompt_ids: strays });
    }
    return strays;
  }

  /** The engine a job is on (null: waiting in Studio, or not in the queue). */
  engineOf(promptId: string): string | null {
    return this.deps.store.get(promptId)?.engine_id ?? null;
  }

  /** Take an active job off the engine it is on (a delete does this first, as cancel does). */
  async takeOff(promptId: string): Promise<void> {
    const row = this.deps.store.get(promptId);
    if (row && row.engine_id === null) return;
    // Its engine: the queue's, else the record's; the first engine for a job neither names.
    const engineId = row?.engine_id ?? this.deps.jobs.get(promptId)?.engine_id ?? null;
    const engines = this.deps.engines();
    const engine = engines.find((e) => e.id === engineId) ?? engines[0];
    if (engine) await stopOnEngine(engine, promptId, this.deps.logger);
  }
}

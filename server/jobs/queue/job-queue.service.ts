/**
 * Studio's own queue: jobs wait here (SQLite, `queue.store.ts`) and are handed to an engine the
 * moment it has room. Each engine holds at most one running job and one prefetched (submitted,
 * waiting in the engine's own queue), so it never idles between jobs and no job is bound early to
 * a busy engine. The job's status stays the lifecycle's (`queued` while waiting or prefetched):
 * this service only places jobs, cancels them (through the lifecycle) and reorders the waiting.
 */
import type { EngineClient } from '../../engine/engine.client.js';
import { DomainError, isKind } from '../../domain-error.js';
import type { EventBus } from '../../events/event-bus.js';
import type { JobFolders } from '../job-folders.store.js';
import type { JobLifecycle } from '../job-lifecycle.js';
import type { JobMonitor } from '../job-monitor.js';
import type { JobStore } from '../job.store.js';
import type { JobRecord } from '../../contracts/jobs.contract.js';
import type { QueueState } from '../../contracts/queue.contract.js';
import type { Logger } from '../../logging.js';
import type { SettingsStore } from '../../db/settings.store.js';
import type { ApiGraph } from '../../engine/engine-graph.js';
import { fairIndex } from './fair-share.js';
import type { QueueRow, QueueStore } from './queue.store.js';

/** The id of the one engine Studio drives today (the engine pool adds others). */
export const LOCAL_ENGINE_ID = 'local';
/** Jobs an engine holds at once: the running one and one prefetched. */
const ENGINE_SLOTS = 2;
/** How long a hand-over waits for the engine socket (its events are not replayed). */
const SOCKET_WAIT_MS = 2_000;
const PAUSED_KEY = 'queue_paused';

/** An engine the queue hands jobs to. */
export interface QueueEngine {
  id: string;
  client: EngineClient;
  monitor: JobMonitor;
  /** The `client_id` jobs are submitted with (their messages come to Studio's socket). */
  clientId: string;
}

/** A job to queue: what is submitted to the engine when its turn comes. */
export interface QueueEntry {
  submitter: string;
  graph: ApiGraph;
  extraData: Record<string, unknown>;
}


export interface JobQueueDeps {
  store: QueueStore;
  jobs: JobStore;
  lifecycle: JobLifecycle;
  folders: JobFolders;
  settings: SettingsStore;
  engines: QueueEngine[];
  events: EventBus;
  logger: Logger;
  /** How often the queue retries a hand-over that failed (engine down). */
  retryMs?: number;
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

  constructor(private readonly deps: JobQueueDeps) {}

  /**
   * Boot, before the engine is reconciled: jobs left waiting by the previous run become `stalled`
   * (the spec's restart rule; jobs handed to an engine are reconciled with it instead), and the
   * queue follows job changes from here on.
   */
  recover(): void {
    const stalled: string[] = [];
    for (const row of this.deps.store.waiting()) {
      const result = this.deps.lifecycle.stall(row.prompt_id, { cause: 'restart' });
      this.deps.store.remove(row.prompt_id);
      if (result.ok) {
        stalled.push(row.prompt_id);
        this.markDone(result.job);
      }
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
      if (change.type === 'job.queued' || change.type === 'job.started') return;
      // Finished in any way: the job no longer holds a place (its engine slot is free).
      this.deps.store.remove(change.job.prompt_id);
      this.schedule();
    });
  }

  /** Begin handing jobs to the engines (and retrying a hand-over that failed, every `retryMs`). */
  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => this.schedule(), this.deps.retryMs ?? 1_000);
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

  /** Put a recorded job in the queue, at its fair place. Called inside the lifecycle's submit. */
  enqueue(promptId: string, entry: QueueEntry): void {
    const index = fairIndex(this.deps.store.waiting(), entry.submitter);
    this.deps.store.insertAt({ prompt_id: promptId, submitter: entry.submitter, graph: entry.graph, extra_data: entry.extraData }, index);
    this.schedule();
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
    let running = 0;
    const engines = this.deps.engines.map((engine) => {
      const mine = handed.filter((r) => r.engine_id === engine.id).map((r) => this.deps.jobs.get(r.prompt_id));
      const runningJob = mine.find((j) => j?.status === 'running') ?? null;
      if (runningJob) running++;
      return { id: engine.id, running: runningJob?.prompt_id ?? null, prefetched: mine.filter((j) => j?.status === 'queued').map((j) => j!.prompt_id) };
    });
    return { paused: this.paused, waiting: this.deps.store.waiting().length, running, engines };
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
    for (const job of [...byId.values()]) take(job.prompt_id, this.deps.engines[0]?.id ?? null, null);
    return out;
  }

  /**
   * Cancel a job wherever it is: waiting → it leaves the queue; prefetched → deleted from its
   * engine's queue; running → interrupted on its engine. Its folder keeps what was produced.
   */
  async cancel(promptId: string): Promise<JobRecord> {
    const job = this.deps.jobs.get(promptId);
    if (!job) throw new DomainError('not_found', `Job not found: ${promptId}`);
    if (job.status !== 'queued' && job.status !== 'running') throw new DomainError('conflict', `Job ${promptId} already finished (${job.status})`);
    const row = this.deps.store.get(promptId);
    if (!row || row.engine_id !== null) await this.stopOnEngine(promptId, row);
    const result = this.deps.lifecycle.cancel(promptId);
    if (!result.ok) {
      const now = this.deps.jobs.get(promptId);
      if (!now) throw new DomainError('not_found', `Job not found: ${promptId}`);
      throw new DomainError('conflict', `Job ${promptId} could not be cancelled: ${result.refused}`);
    }
    this.markDone(result.job);
    return result.job;
  }

  /** Cancel every job still waiting in Studio (not the ones on engines); how many were. */
  clear(): number {
    let cancelled = 0;
    for (const row of this.deps.store.waiting()) {
      const result = this.deps.lifecycle.cancel(row.prompt_id);
      if (!result.ok) continue;
      cancelled++;
      this.markDone(result.job);
    }
    return cancelled;
  }

  /** Move a waiting job to `position` among the waiting (0 = next); clamped to the end. */
  move(promptId: string, position: number): QueueState {
    const job = this.deps.jobs.get(promptId);
    if (!job) throw new DomainError('not_found', `Job not found: ${promptId}`);
    if (this.deps.store.get(promptId)?.engine_id !== null || job.status !== 'queued') throw new DomainError('conflict', `Job ${promptId} is no longer waiting (${job.status}${job.status === 'queued' ? ', on an engine' : ''})`);
    const order = this.deps.store.waiting().map((r) => r.prompt_id).filter((id) => id !== promptId);
    order.splice(Math.min(position, order.length), 0, promptId);
    this.deps.store.reorder(order);
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
      if (this.stopped) {
        this.pumping = false;
        return;
      }
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

  private async pump(): Promise<void> {
    for (const engine of this.deps.engines) {
      for (;;) {
        if (this.paused || this.stopped) return;
        const held = this.deps.store.handed().filter((r) => r.engine_id === engine.id).length;
        if (held >= ENGINE_SLOTS) break;
        const next = this.deps.store.waiting()[0];
        if (!next) return;
        if (!(await this.handOver(engine, next))) break;
      }
    }
  }

  /** Submit one job to an engine; false when the engine could not take it (it stays first in line). */
  private async handOver(engine: QueueEngine, row: QueueRow): Promise<boolean> {
    const id = row.prompt_id;
    this.handing.add(id);
    try {
      return await this.submitTo(engine, row);
    } finally {
      this.handing.delete(id);
    }
  }

  private async submitTo(engine: QueueEngine, row: QueueRow): Promise<boolean> {
    const id = row.prompt_id;
    this.deps.store.hand(id, engine.id);
    await engine.monitor.socketReady(SOCKET_WAIT_MS);
    // Cancelled while the socket was awaited: its row is gone, nothing to submit.
    if (!this.deps.store.get(id)) return true;
    engine.monitor.track(id, row.graph, { held: true });
    try {
      const submitted = await engine.client.submitPrompt({ prompt: row.graph, client_id: engine.clientId, prompt_id: id, extra_data: row.extra_data });
      if (Object.keys(submitted.node_errors).length) {
        this.deps.logger.warn(`prompt ${id} was queued with node errors: ${JSON.stringify(submitted.node_errors).slice(0, 1000)}`);
      }
    } catch (err) {
      engine.monitor.untrack(id);
      if (isKind(err, 'rejected')) {
        // Valid when queued, refused now (a model was removed meanwhile): the job fails with the engine's words.
        const result = this.deps.lifecycle.fail(id, err.message);
        if (result.ok) this.markDone(result.job);
        this.deps.store.remove(id);
        return true;
      }
      this.deps.logger.warn(`engine ${engine.id} could not take job ${id}; it stays first in line`, err);
      if (this.deps.store.get(id)) this.deps.store.hand(id, null);
      return false;
    }
    engine.monitor.release(id);
    // Cancelled while the submit was in flight: take it back off the engine.
    const now = this.deps.jobs.get(id);
    if (!now || (now.status !== 'queued' && now.status !== 'running')) await this.stopOnEngine(id, { ...row, engine_id: engine.id });
    return true;
  }

  /** Take a job off its engine: out of the engine's queue if it waits there, interrupted if it runs. */
  private async stopOnEngine(promptId: string, row: QueueRow | null): Promise<void> {
    const engine = this.deps.engines.find((e) => e.id === row?.engine_id) ?? this.deps.engines[0];
    if (!engine) return;
    // Both: the engine may start it between the two calls; an interrupt with an id only stops that prompt.
    await engine.client.deleteFromQueue([promptId]).catch((err: unknown) => this.deps.logger.warn(`could not delete ${promptId} from engine ${engine.id}'s queue`, err));
    await engine.client.interrupt(promptId).catch((err: unknown) => this.deps.logger.warn(`could not interrupt ${promptId} on engine ${engine.id}`, err));
  }

  private markDone(job: JobRecord): void {
    if (!job.output_dir) return;
    try {
      this.deps.folders.markDone(job.output_dir);
    } catch (err) {
      this.deps.logger.warn(`could not clear the marker of ${job.output_dir}`, err);
    }
  }
}

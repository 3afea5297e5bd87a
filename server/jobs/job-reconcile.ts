/**
 * After Studio or the engine (re)starts, every job still `queued` or `running` is checked
 * against the engine before anything is marked: still in its queue → followed again; in its
 * history → finished with its outputs; otherwise → `stalled` (the engine lost it). A job whose
 * history cannot be read is left as it is and checked again: a check that could not finish is
 * retried with backoff, not left until the engine next goes down and up.
 */
import type { EngineClient } from '../engine/engine.client.js';
import type { EventBus } from '../events/event-bus.js';
import type { Logger } from '../logging.js';
import { backoffDelay } from '../process/backoff.js';
import { systemClock } from '../process/clock.js';
import type { ApiGraph } from '../engine/engine-graph.js';
import type { OrphanSnapshot } from '../engine/engine-orphan.js';
import type { StallReason } from './job-transitions.js';
import type { JobMonitor } from './job-monitor.js';
import type { JobRecord } from '../contracts/jobs.contract.js';
import type { JobStore } from './job.store.js';

export interface ReconcileDeps {
  jobs: JobStore;
  engine: EngineClient;
  monitor: JobMonitor;
  events: EventBus;
  logger: Logger;
  /** True for a job still waiting in Studio's queue: the engine has not seen it, nothing to check. */
  isWaiting: (promptId: string) => boolean;
  /**
   * The local engine that Studio runs itself: at the first check after boot it is a new engine, so
   * a job it has not got was lost to the restart (`engine_restart`); and the snapshot of the orphan a
   * killed Studio left running (`engine/engine-orphan.ts`) finishes the jobs that orphan finished.
   */
  ownEngine?: { orphan: () => OrphanSnapshot | null; orphanChecked: () => void };
}

/** The waits before a check that could not finish is tried again: 2 s doubling to 60 s. */
const RETRY = { baseMs: 2000, maxMs: 60_000 };

export interface ReconcileResult {
  followed: string[];
  finished: string[];
  stalled: string[];
  /** Jobs whose engine history could not be read: left as they are, for the next check. */
  unchecked: string[];
}

/**
 * Reconcile unfinished jobs; null when the engine could not be asked (try again later). Each job
 * is counted once, under what it is after the check: one the engine watcher settled meanwhile
 * counts as what the watcher made of it.
 */
async function reconcileJobs(deps: ReconcileDeps, lostReason: StallReason): Promise<ReconcileResult | null> {
  const active = deps.jobs.active().filter((job) => !deps.isWaiting(job.prompt_id));
  if (active.length === 0) return { followed: [], finished: [], stalled: [], unchecked: [] };
  let queue;
  try {
    queue = await deps.engine.queue();
  } catch (err) {
    deps.logger.warn('cannot reconcile jobs: engine unreachable', err);
    return null;
  }
  const inQueue = new Map<string, ApiGraph>();
  for (const item of [...queue.raw.queue_running, ...queue.raw.queue_pending]) inQueue.set(item[1], (item[2] ?? {}) as ApiGraph);
  const running = new Set(queue.raw.queue_running.map((item) => item[1]));
  const orphan = deps.ownEngine?.orphan() ?? null;

  const result: ReconcileResult = { followed: [], finished: [], stalled: [], unchecked: [] };
  const count = (promptId: string, job: JobRecord | null) => {
    if (!job) return; // Deleted meanwhile: nothing to report.
    if (job.status === 'stalled') result.stalled.push(promptId);
    else if (job.status === 'completed' || job.status === 'error') result.finished.push(promptId);
    else result.followed.push(promptId);
  };
  for (const job of active) {
    const graph = inQueue.get(job.prompt_id);
    if (graph) {
      // A prompt the engine is running shows as running at once, not only from its next message
      // (a node without steps may keep the engine quiet for a long time).
      if (!deps.monitor.isTracked(job.prompt_id)) deps.monitor.track(job.prompt_id, graph, { running: running.has(job.prompt_id) });
      count(job.prompt_id, deps.jobs.get(job.prompt_id));
      continue;
    }
    let history;
    try {
      history = await deps.engine.history(job.prompt_id);
    } catch (err) {
      // One unreadable history must not hold up the others (nor mark this one lost).
      deps.logger.warn(`cannot read the history of ${job.prompt_id}; checking it again later`, err);
      result.unchecked.push(job.prompt_id);
      continue;
    }
    // Not in the new engine's history: the orphan's may have it (finished while Studio was down).
    // One it was still running was interrupted when it was ended: lost to the restart, not failed.
    const fromOrphan = orphan?.history[job.prompt_id];
    if (fromOrphan && (!orphan?.queued.includes(job.prompt_id) || fromOrphan.status?.status_str === 'success')) history ??= fromOrphan;
    count(job.prompt_id, history ? await deps.monitor.settleFromHistory(job.prompt_id, history) : deps.monitor.markStalled(job.prompt_id, lostReason));
  }
  if (result.unchecked.length === 0) deps.ownEngine?.orphanChecked();
  // A followed prompt may have finished between the queue read and its tracking: its end was heard by no one.
  if (result.followed.length) await deps.monitor.recheck(result.followed);
  const total = result.followed.length + result.finished.length + result.stalled.length;
  if (total === 0) return result;
  const severity = result.stalled.length ? 'warning' : 'info';
  deps.events.emit(
    'system.startup',
    severity,
    `Checked ${total} unfinished job(s) with the engine: ${result.followed.length} still running, ${result.finished.length} finished, ${result.stalled.length} stalled`,
    { followed: result.followed, finished: result.finished, stalled: result.stalled },
  );
  return result;
}

/**
 * Runs reconciliation when it is due (boot, and after the engine was down), one run at a time: a
 * check asked for while one is under way waits for it and is not run twice over the same jobs.
 */
export class Reconciler {
  private pending = true;
  private running: Promise<void> | null = null;
  /** Consecutive checks that could not finish (they set the retry's wait). */
  private failures = 0;
  /** Aborts the wait before a retry (and ends retries on stop). */
  private retryWait: AbortController | null = null;
  private stopped = false;
  /** Until the first check completes, Studio's own engine is the one it started at boot. */
  private booted = false;

  constructor(private readonly deps: ReconcileDeps) {}

  /** No more checks (Studio stops). */
  stop(): void {
    this.stopped = true;
    this.retryWait?.abort();
  }

  /** The engine went away: its jobs need checking once it is back. */
  markPending(): void {
    this.pending = true;
  }

  /** Check the unfinished jobs if due; resolves when done (or when the engine could not be asked). */
  runIfPending(): Promise<void> {
    if (this.running) return this.running;
    if (!this.pending) return Promise.resolve();
    this.pending = false;
    this.retryWait?.abort();
    const lostReason: StallReason = this.deps.ownEngine && !this.booted ? { cause: 'engine_restart' } : { cause: 'lost' };
    this.running = reconcileJobs(this.deps, lostReason)
      .then(
        (result) => {
          this.booted ||= result !== null;
          return result?.unchecked.length === 0;
        },
        (err: unknown) => {
          this.deps.logger.error('job reconciliation failed', err);
          return false;
        },
      )
      .then((done) => {
        this.running = null;
        if (done) this.failures = 0;
        else this.retryLater();
      });
    return this.running;
  }

  /** The check could not finish (engine unreachable, a history unreadable): try again after a wait. */
  private retryLater(): void {
    this.pending = true;
    if (this.stopped) return;
    this.failures += 1;
    const wait = (this.retryWait = new AbortController());
    void systemClock.sleep(backoffDelay(this.failures, RETRY), wait.signal).then(() => {
      if (!wait.signal.aborted && !this.stopped) void this.runIfPending();
    });
  }
}

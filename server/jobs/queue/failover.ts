/**
 * Failover: an engine that stops answering while it holds jobs (running or prefetched) gives them
 * back; they go to the front of Studio's queue, in the order they were handed, for another engine
 * — at most MAX_FAILOVERS times each, then the job fails with the reason. A running job moves back
 * to `queued` through the lifecycle (event `job.requeued` names the engine). With a single engine
 * there is no other: its jobs wait for it and are reconciled with it when it is back, as before.
 */
import type { EventBus } from '../../events/event-bus.js';
import { emitRequeued } from '../job-announce.js';
import type { JobLifecycle } from '../job-lifecycle.js';
import type { JobStore } from '../job.store.js';
import type { Logger } from '../../logging.js';
import { cancelOnLostEngine } from './hand-over.js';
import { MAX_FAILOVERS, type QueueEngine } from './queue-engine.js';
import type { QueueStore } from './queue.store.js';

export interface FailoverDeps {
  store: QueueStore;
  jobs: JobStore;
  lifecycle: JobLifecycle;
  events: EventBus;
  engines: () => QueueEngine[];
}

/**
 * The leases failover took back: per engine, the jobs it lost to others. When it answers again its
 * copies of them are checked: one that finished there all the same (cut off, it kept running) ran
 * twice. Studio keeps the one result it recorded (the lost copy's messages reach no monitor) and
 * says what was wasted (`job.ran_twice`).
 */
export class LostCopies {
  private readonly lost = new Map<string, Set<string>>();

  /** Failover took `promptIds` from `engine`: remembered, and cancelled on it at once (`cancelOnLostEngine`). */
  taken(engine: QueueEngine, promptIds: readonly string[], logger: Logger): void {
    const lost = this.lost.get(engine.id) ?? new Set<string>();
    for (const id of promptIds) lost.add(id);
    this.lost.set(engine.id, lost);
    void cancelOnLostEngine(engine, promptIds, logger);
  }

  /** `engine` answers again; `strays` were still in its queue (taken off it, never finished there). */
  async check(engine: QueueEngine, strays: readonly string[], deps: { jobs: JobStore; events: EventBus; engineOf: (id: string) => string | null }): Promise<void> {
    const lost = this.lost.get(engine.id);
    if (!lost) return;
    this.lost.delete(engine.id);
    for (const id of lost) {
      if (strays.includes(id)) continue;
      const entry = await engine.client.history(id).catch(() => null);
      if (entry?.status?.status_str !== 'success') continue;
      const job = deps.jobs.get(id);
      deps.events.emit('job.ran_twice', 'warning', `Job ${job?.workflow_name ?? id} also finished on engine ${engine.name}, which had lost it to another engine: its GPU time there was wasted; Studio kept one result`, {
        prompt_id: id,
        engine_id: engine.id,
        kept_engine_id: deps.engineOf(id) ?? job?.engine_id ?? null,
      });
    }
  }
}

/** Take the jobs of `engineId` back into the queue (or fail them after too many failovers); returns every job taken from it. */
export function failoverJobs(engineId: string, deps: FailoverDeps): string[] {
  const engines = deps.engines();
  if (engines.length < 2) return [];
  const engine = engines.find((e) => e.id === engineId);
  const name = engine?.name ?? engineId;
  const back: string[] = [];
  const taken: string[] = [];
  for (const row of deps.store.handed().filter((r) => r.engine_id === engineId)) {
    const id = row.prompt_id;
    engine?.monitor.untrack(id);
    const job = deps.jobs.get(id);
    if (!job || (job.status !== 'queued' && job.status !== 'running')) continue;
    taken.push(id);
    if (row.failovers >= MAX_FAILOVERS) {
      deps.store.remove(id);
      deps.lifecycle.move(id, { to: 'error', error: `Engine ${name} went offline while it had this job, after ${MAX_FAILOVERS} other engines had done the same; Studio stopped moving it` });
      continue;
    }
    back.push(id);
    const via = { engine_id: engineId, failovers: row.failovers + 1 };
    // A running job moves back to `queued` (the lifecycle announces it); a prefetched one is `queued` already.
    if (job.status === 'running' && deps.lifecycle.move(id, { to: 'queued', via }).ok) continue;
    emitRequeued(deps.events, job, via);
  }
  if (back.length) deps.store.requeueFront(back);
  return taken;
}

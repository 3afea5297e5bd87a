/**
 * Failover: an engine that stops answering while it holds jobs (running or prefetched) gives them
 * back; they go to the front of Studio's queue, in the order they were handed, for another engine
 * — at most MAX_FAILOVERS times each, then the job fails with the reason. A running job moves back
 * to `queued` through the lifecycle (event `job.requeued` names the engine). With a single engine
 * there is no other: its jobs wait for it and are reconciled with it when it is back, as before.
 */
import type { EventBus } from '../../events/event-bus.js';
import type { JobRecord } from '../../contracts/jobs.contract.js';
import type { JobLifecycle } from '../job-lifecycle.js';
import type { JobStore } from '../job.store.js';
import { MAX_FAILOVERS, type QueueEngine } from './queue-engine.js';
import type { QueueStore } from './queue.store.js';

export interface FailoverDeps {
  store: QueueStore;
  jobs: JobStore;
  lifecycle: JobLifecycle;
  events: EventBus;
  engines: () => QueueEngine[];
  markDone: (job: JobRecord) => void;
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
      const failed = deps.lifecycle.fail(id, `Engine ${name} went offline while it had this job, after ${MAX_FAILOVERS} other engines had done the same; Studio stopped moving it`);
      if (failed.ok) deps.markDone(failed.job);
      continue;
    }
    back.push(id);
    const via = { engine_id: engineId, failovers: row.failovers + 1 };
    // A running job moves back to `queued` (the lifecycle announces it); a prefetched one is `queued` already.
    if (job.status === 'running' && deps.lifecycle.requeue(id, via).ok) continue;
    deps.events.emit('job.requeued', 'warning', `Job back in the queue: its engine went offline (${job.workflow_name ?? job.workflow_id ?? id})`, { prompt_id: id, workflow_id: job.workflow_id, ...via });
  }
  if (back.length) deps.store.requeueFront(back);
  return taken;
}

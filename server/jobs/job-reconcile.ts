/**
 * After Studio or the engine (re)starts, every job still `queued` or `running` is checked
 * against the engine before anything is marked: still in its queue → followed again; in its
 * history → finished with its outputs; otherwise → `stalled` (the engine lost it).
 */
import type { EngineClient } from '../engine/engine.client.js';
import type { EventBus } from '../events/event-bus.js';
import type { Logger } from '../logging.js';
import type { ApiGraph } from '../workflows/types.js';
import type { JobFolders } from './job-folders.store.js';
import type { JobMonitor } from './job-monitor.js';
import type { JobStore } from './job.store.js';

export interface ReconcileDeps {
  jobs: JobStore;
  engine: EngineClient;
  monitor: JobMonitor;
  folders: JobFolders;
  events: EventBus;
  logger: Logger;
}

export interface ReconcileResult {
  followed: string[];
  finished: string[];
  stalled: string[];
}

export const STALLED_ERROR = 'The engine has no record of this job: it was lost while Studio or the engine restarted';

/** Reconcile unfinished jobs; null when the engine could not be asked (try again later). */
export async function reconcileJobs(deps: ReconcileDeps): Promise<ReconcileResult | null> {
  const active = deps.jobs.active();
  if (active.length === 0) return { followed: [], finished: [], stalled: [] };
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

  const result: ReconcileResult = { followed: [], finished: [], stalled: [] };
  for (const job of active) {
    const graph = inQueue.get(job.prompt_id);
    if (graph) {
      // A prompt the engine is running shows as running at once, not only from its next message
      // (a node without steps may keep the engine quiet for a long time).
      if (!deps.monitor.isTracked(job.prompt_id)) deps.monitor.track(job.prompt_id, graph, { running: running.has(job.prompt_id) });
      result.followed.push(job.prompt_id);
      continue;
    }
    let history;
    try {
      history = await deps.engine.history(job.prompt_id);
    } catch (err) {
      deps.logger.warn(`cannot read the history of ${job.prompt_id}`, err);
      return null;
    }
    if (history) {
      deps.monitor.finishFromHistory(job.prompt_id, history);
      result.finished.push(job.prompt_id);
      continue;
    }
    deps.monitor.markStalled(job.prompt_id, STALLED_ERROR);
    result.stalled.push(job.prompt_id);
  }
  const severity = result.stalled.length ? 'warning' : 'info';
  deps.events.emit(
    'system.startup',
    severity,
    `Checked ${active.length} unfinished job(s) with the engine: ${result.followed.length} still running, ${result.finished.length} finished, ${result.stalled.length} stalled`,
    { followed: result.followed, finished: result.finished, stalled: result.stalled },
  );
  return result;
}

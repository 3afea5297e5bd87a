/**
 * An engine back after failover still holds the copies of the jobs Studio took from it: the one it
 * was running and the one prefetched, now handed to (or finished by) another engine. Left alone,
 * it would run them again — a second run of a job, writing into the job folder when it shares
 * Studio's folders. So when an engine comes back, every Studio job in its queue that Studio's
 * queue does not hold on that engine is deleted from its queue, or interrupted if it runs there.
 * Prompts that are not Studio's jobs (someone else uses that ComfyUI) are left alone.
 */
import type { Logger } from '../../logging.js';
import type { JobStore } from '../job.store.js';
import { stopOnEngine } from './hand-over.js';
import type { QueueEngine } from './queue-engine.js';
import type { QueueStore } from './queue.store.js';

export interface StrayDeps {
  store: QueueStore;
  jobs: JobStore;
  logger: Logger;
}

/** Take off `engine` the Studio jobs it holds that Studio no longer gives it; returns their ids. */
export async function evictStrays(engine: QueueEngine, deps: StrayDeps): Promise<string[]> {
  let queue;
  try {
    queue = await engine.client.queue();
  } catch (err) {
    deps.logger.warn(`engine ${engine.id}: its queue could not be read to remove jobs it no longer holds`, err);
    return [];
  }
  const strays = [...queue.running, ...queue.pending].filter((id) => isStray(id, engine.id, deps));
  for (const id of strays) {
    deps.logger.warn(`engine ${engine.id} is back with job ${id}, which Studio gave to another engine (or ended) meanwhile: taking it off`);
    await stopOnEngine(engine, id, deps.logger);
  }
  return strays;
}

/**
 * A Studio job `engineId` should not hold: Studio's queue has it elsewhere (waiting in Studio, or
 * on another engine), or it has finished. An active job the queue does not hold at all (queued
 * before Studio had its queue) stays with the engine, as before.
 */
function isStray(promptId: string, engineId: string, deps: StrayDeps): boolean {
  const job = deps.jobs.get(promptId);
  if (!job) return false;
  const row = deps.store.get(promptId);
  if (row) return row.engine_id !== engineId;
  return job.status !== 'queued' && job.status !== 'running';
}

/**
 * What the event log and Studio's WebSocket clients learn of a job change: one event per job and
 * the whole record, derived from the lifecycle's published change (and only from it); and the job
 * folder's `.incomplete` marker, removed once the job has ended, however it ended.
 */
import type { EventBus } from '../events/event-bus.js';
import type { Logger } from '../logging.js';
import type { JobFolders } from './job-folders.store.js';
import { ownerAudience, type WsHub } from '../http/ws-hub.js';
import { OWNER_ID } from '../contracts/users.contract.js';
import { FINISHED_STATUSES, type JobRecord } from '../contracts/jobs.contract.js';
import type { FailoverNote, JobChange, JobLifecycle } from './job-lifecycle.js';

export function logJobChanges(lifecycle: JobLifecycle, events: EventBus): () => void {
  return lifecycle.subscribe((change) => {
    if (change.type === 'job.deleted') {
      for (const job of change.jobs) {
        events.emit('job.deleted', 'info', `Job deleted: ${job.workflow_name ?? job.prompt_id}`, {
          prompt_id: job.prompt_id,
          workflow_id: job.workflow_id,
          output_dir: job.output_dir,
          user_id: job.owner_id ?? OWNER_ID,
        });
      }
      return;
    }
    const { job } = change;
    const ids = jobEventIds(job);
    const name = job.workflow_name ?? job.workflow_id ?? job.prompt_id;
    switch (change.type) {
      case 'job.queued':
        return events.emit('job.queued', 'info', `Job queued: ${name}`, ids);
      case 'job.started':
        return events.emit('job.started', 'info', `Job started: ${name}`, ids);
      case 'job.completed':
        return events.emit('job.completed', 'success', `Job completed in ${job.duration ?? 0}s`, { ...ids, duration: job.duration ?? 0 });
      case 'job.failed':
        return events.emit('job.failed', 'error', `Job failed: ${job.error}`, { ...ids, error: job.error });
      case 'job.stalled':
        return events.emit('job.stalled', 'warning', `Job stalled: ${job.error}`, { ...ids, cause: change.reason.cause, error: job.error });
      case 'job.requeued':
        return emitRequeued(events, job, change.via);
      case 'job.cancelled':
        return events.emit('job.cancelled', 'info', `Job cancelled: ${name}`, { ...ids, was: change.from });
    }
  });
}

/**
 * What every job event's data names: the job, its workflow, the engine it was handed to once it
 * has one (events say which engine did what), and whose job it is (`user_id`: the events route
 * shows a person only their own jobs' events).
 */
function jobEventIds(job: JobRecord): Record<string, unknown> {
  return { prompt_id: job.prompt_id, workflow_id: job.workflow_id, ...(job.engine_id ? { engine_id: job.engine_id } : {}), user_id: job.owner_id ?? OWNER_ID };
}

/** `job.requeued`: from the lifecycle's change for a running job, and from failover for a prefetched one (already `queued`: no change to publish). */
export function emitRequeued(events: Pick<EventBus, 'emit'>, job: JobRecord, via: FailoverNote): void {
  events.emit('job.requeued', 'warning', `Job back in the queue: its engine went offline (${job.workflow_name ?? job.workflow_id ?? job.prompt_id})`, { ...jobEventIds(job), ...via });
}

/** Push every job change to the WebSocket clients who may see the job (its owner, admins, the owner of Studio). */
export function broadcastJobChanges(lifecycle: JobLifecycle, hub: WsHub): () => void {
  return lifecycle.subscribe((change: JobChange) => {
    if (change.type !== 'job.deleted') return hub.broadcast(change.type, change.job, ownerAudience(change.job.owner_id));
    // One message per owner, so nobody learns the ids of another person's deleted jobs.
    const byOwner = new Map<string, JobRecord[]>();
    for (const job of change.jobs) byOwner.set(job.owner_id ?? OWNER_ID, [...(byOwner.get(job.owner_id ?? OWNER_ID) ?? []), job]);
    for (const [ownerId, jobs] of byOwner) hub.broadcast('job.deleted', { prompt_ids: jobs.map((j) => j.prompt_id) }, ownerAudience(ownerId));
  });
}

/** A finished job writes nothing more into its folder: its marker goes (a failure to is only logged). */
export function clearFinishedMarkers(lifecycle: JobLifecycle, folders: JobFolders, logger: Logger): () => void {
  return lifecycle.subscribe((change) => {
    if (change.type === 'job.deleted' || !change.job.output_dir || !FINISHED_STATUSES.includes(change.job.status)) return;
    try {
      folders.markDone(change.job.output_dir);
    } catch (err) {
      logger.warn(`could not clear the marker of ${change.job.output_dir}`, err);
    }
  });
}

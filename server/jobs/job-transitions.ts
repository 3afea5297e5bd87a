/**
 * The job states of the spec and the moves between them, as one table. A job is created `queued`
 * (never moved there); `completed`, `error`, `stalled` and `cancelled` are final (a retry is a new
 * job). The spec names `queued|running → stalled`; `cancelled` is Studio's queue (a user cancels a
 * waiting or running job); the rest is what the engine can do to a prompt: start it, finish it
 * (also before Studio heard it start) or fail it.
 */
import type { JobStatus } from '../contracts/jobs.contract.js';

export const JOB_TRANSITIONS: Readonly<Record<JobStatus, readonly JobStatus[]>> = {
  queued: ['running', 'completed', 'error', 'stalled', 'cancelled'],
  // Back to waiting: its engine went offline while running it (failover to another engine).
  running: ['completed', 'error', 'stalled', 'cancelled', 'queued'],
  completed: [],
  error: [],
  stalled: [],
  cancelled: [],
};

/** Every status, in the spec's order. */
export const JOB_STATUSES = Object.keys(JOB_TRANSITIONS) as JobStatus[];

/** True when the table allows `from → to`. */
export function canMove(from: JobStatus, to: JobStatus): boolean {
  return JOB_TRANSITIONS[from].includes(to);
}

/** Why a job stalled; each cause has one wording (the record's `error`, the event's message). */
export type StallReason = { cause: 'lost' } | { cause: 'no_progress'; minutes: number } | { cause: 'restart' } | { cause: 'engine_restart' };

/** The one wording of a stall cause. */
export function stallMessage(reason: StallReason): string {
  switch (reason.cause) {
    case 'lost':
      return 'The engine lost this job: it is neither in its queue nor in its history (the engine or Studio restarted, or the engine dropped it)';
    case 'restart':
      return "Studio restarted while this job waited in its queue: it never reached the engine (retry it, or use Retry all stalled)";
    case 'engine_restart':
      return 'Studio restarted, and the engine it runs with it, while this job was on the engine: the new engine does not have it (retry it, or use Retry all stalled)';
    case 'no_progress':
      return `The engine sent no progress for ${formatMinutes(reason.minutes)} while running this job; Studio stopped waiting and asked the engine to cancel it`;
  }
}

function formatMinutes(minutes: number): string {
  if (minutes >= 1) {
    const rounded = Math.round(minutes * 10) / 10;
    return `${rounded} minute${rounded === 1 ? '' : 's'}`;
  }
  const seconds = Math.max(1, Math.round(minutes * 60));
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}

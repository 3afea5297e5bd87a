/**
 * The one owner of a job's status. Every change (a new job, start, completion, failure, stall,
 * cancel, removal) comes here: it is checked against the transition table, written to the `jobs` table
 * (compare and set, so two paths racing on one job cannot both win), and published as one typed
 * change. The event log, the WebSocket hub and the LLM's GPU policy subscribe to that change
 * (`job-announce.ts`, `studio.ts`), so what they say always agrees with the record.
 */
import type { Db } from '../db/database.js';
import type { Logger } from '../logging.js';
import { localStamp, parseLocalStamp } from '../time.js';
import { JobRecordWriter } from './job-record.writer.js';
import type { JobRecord, JobStatus, OutputRef } from '../contracts/jobs.contract.js';
import type { JobStore } from './job.store.js';
import { canMove, stallMessage, type StallReason } from './job-transitions.js';

/** One published change; `type` is the event and WebSocket name it goes out under. */
export type JobChange =
  | { type: 'job.queued'; job: JobRecord; from: null }
  | { type: 'job.started'; job: JobRecord; from: JobStatus }
  | { type: 'job.completed'; job: JobRecord; from: JobStatus }
  | { type: 'job.failed'; job: JobRecord; from: JobStatus }
  | { type: 'job.stalled'; job: JobRecord; from: JobStatus; reason: StallReason }
  | { type: 'job.cancelled'; job: JobRecord; from: JobStatus }
  | { type: 'job.requeued'; job: JobRecord; from: JobStatus; via: FailoverNote }
  | { type: 'job.deleted'; jobs: JobRecord[] };

/** Which engine went offline with the job, and how often that has happened to it. */
export interface FailoverNote {
  engine_id: string;
  failovers: number;
}

/**
 * A move; to `queued` only back from `running` (failover: its engine went offline, the queue hands
 * it to another engine); to `cancelled` when a user cancels it in Studio's queue; to `stalled` with
 * the wording of its cause.
 */
export type JobMove =
  | { to: 'queued'; via: FailoverNote }
  | { to: 'running' }
  | { to: 'completed'; output: OutputRef | null }
  | { to: 'error'; error: string; output?: OutputRef | null }
  | { to: 'stalled'; reason: StallReason }
  | { to: 'cancelled' };

/** What a move did: the new record, or why not and the record as it is. */
export type MoveResult = { ok: true; job: JobRecord; from: JobStatus } | { ok: false; job: JobRecord | null; refused: string };

export interface JobLifecycleDeps {
  db: Db;
  jobs: JobStore;
  logger: Logger;
}

type Listener = (change: JobChange) => void;

export class JobLifecycle {
  private readonly writer: JobRecordWriter;
  private readonly listeners = new Set<Listener>();
  /** Jobs recorded but not yet accepted by the engine: nothing moves them until announced. */
  private readonly submitting = new Set<string>();

  constructor(private readonly deps: JobLifecycleDeps) {
    this.writer = new JobRecordWriter(deps.db);
  }

  /** Receive every future change; returns the unsubscribe function. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  activeCount(): number {
    return this.deps.jobs.activeCount();
  }

  /**
   * Record a new `queued` job, run `submit` (the engine accepts the prompt), then announce it.
   * The record exists before the submit so that the engine's first messages find it; a submit
   * that throws leaves no record and no announcement.
   */
  async submit(job: JobRecord, submit: () => Promise<void>): Promise<JobRecord> {
    if (job.status !== 'queued') throw new Error(`a new job is queued, not ${job.status}`);
    this.writer.insert(job);
    this.submitting.add(job.prompt_id);
    try {
      await submit();
    } catch (err) {
      this.writer.delete([job.prompt_id]);
      throw err;
    } finally {
      this.submitting.delete(job.prompt_id);
    }
    const stored = this.deps.jobs.get(job.prompt_id) ?? job;
    this.publish({ type: 'job.queued', job: stored, from: null });
    return stored;
  }

  /**
   * Studio's queue handed a queued job to `engineId` (its status does not change): the record
   * keeps the engine, so history and the job's own record say where it ran. False when the job
   * is gone or no longer queued. Null: the hand-over failed, it waits in Studio again.
   */
  handedTo(promptId: string, engineId: string | null): boolean {
    return this.writer.setEngine(promptId, engineId);
  }

  /** Apply one move if the table allows it from the job's current status; publish it. */
  move(promptId: string, move: JobMove): MoveResult {
    const job = this.deps.jobs.get(promptId);
    if (!job) return { ok: false, job: null, refused: `no job ${promptId}` };
    if (this.submitting.has(promptId)) return { ok: false, job, refused: 'the engine has not accepted it yet' };
    const to = move.to as JobStatus;
    if (!canMove(job.status, to)) return { ok: false, job, refused: `${job.status} → ${to} is not a job transition` };
    const updated = this.writer.move(promptId, job.status, to, this.fieldsOf(job, move));
    // Changed under us (another path won the race): refused, as the current record says.
    if (!updated) return { ok: false, job: this.deps.jobs.get(promptId), refused: 'the job changed meanwhile' };
    this.publish(changeOf(updated, job.status, move));
    return { ok: true, job: updated, from: job.status };
  }

  /**
   * Star or unstar a job (the user's mark, kept by output retention). Not a status change and not
   * announced; it is written here because the lifecycle holds the table's one writer.
   */
  star(promptId: string, starred: boolean): JobRecord | null {
    return this.writer.setStarred(promptId, starred);
  }

  /** Remove records (any status); returns the ones that existed and announces them. */
  remove(promptIds: readonly string[]): JobRecord[] {
    const removed = this.writer.delete(promptIds);
    if (removed.length) this.publish({ type: 'job.deleted', jobs: removed });
    return removed;
  }

  private fieldsOf(job: JobRecord, move: JobMove) {
    const now = new Date();
    if (move.to === 'running') return { started_at: localStamp(now) };
    // Back in Studio's queue: no engine holds it until the next hand-over.
    if (move.to === 'queued') return { started_at: null, engine_id: null };
    if (move.to === 'stalled') return { error: stallMessage(move.reason), finished_at: localStamp(now) };
    if (move.to === 'cancelled') return { finished_at: localStamp(now) };
    // The run is timed from the engine's start (`running`): a job that never reached it (refused by
    // the engine, or failed before it ran) has no run time, and its wait in the queue is not one
    // (the GPU-seconds quota counts `duration`, issue 43).
    const startedMs = parseLocalStamp(job.started_at);
    return {
      started_at: job.started_at,
      finished_at: localStamp(now),
      duration: startedMs === null ? null : Math.max(0, Math.round((now.getTime() - startedMs) / 1000)),
      output: move.output ?? null,
      error: move.to === 'error' ? move.error : null,
    };
  }

  private publish(change: JobChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (err) {
        // A faulty subscriber must not undo a change that is already written, nor starve the others.
        this.deps.logger.error(`job change listener failed on ${change.type}`, err);
      }
    }
  }
}

/** The change each move is published as. */
const CHANGE_OF_MOVE = { queued: 'job.requeued', running: 'job.started', completed: 'job.completed', error: 'job.failed', stalled: 'job.stalled', cancelled: 'job.cancelled' } as const;

/** The change a move makes, with what it carries besides the record: a failover's engine, a stall's cause. */
function changeOf(job: JobRecord, from: JobStatus, move: JobMove): JobChange {
  const detail = move.to === 'queued' ? { via: move.via } : move.to === 'stalled' ? { reason: move.reason } : {};
  return { type: CHANGE_OF_MOVE[move.to], job, from, ...detail } as JobChange;
}

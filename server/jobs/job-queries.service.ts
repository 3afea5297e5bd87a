/**
 * Read side of jobs: a prompt's status, its result file, the queue with live progress, the
 * history, deletes and packages. Status bodies the spec leaves open are documented in the README:
 * `pending` → `{status, prompt_id, queue_position}`, `error` → `{status, prompt_id, error}`.
 */
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { EngineClient } from '../engine/engine.client.js';
import { isVideoOutput, parseHistoryOutputs, type EngineOutputFile } from '../engine/engine-outputs.js';
import { DomainError } from '../domain-error.js';
import { contentTypeOf, mediaKindOf } from '../media-types.js';
import { filesBelow } from '../zip-writer.js';
import type { JobFolders } from './job-folders.store.js';
import type { JobLifecycle } from './job-lifecycle.js';
import { historyError, type JobMonitor } from './job-monitor.js';
import { ProgressTracker } from './progress-tracker.js';
import type { JobRecord, ProgressObject } from '../contracts/jobs.contract.js';
import type { HistoryQuery, JobStore } from './job.store.js';
import { mayTouch, OWNER_ACTOR, seesEveryone, type Actor } from '../http/actor.js';

export type ResultSource = { filename: string; contentType: string } & ({ path: string; within: string } | { stream: Readable });

export interface JobQueriesDeps {
  jobs: JobStore;
  /** Removes records (and announces it): the one writer of jobs. */
  lifecycle: JobLifecycle;
  monitor: Pick<JobMonitor, 'progress' | 'untrack'>;
  /** The engine of the pool a job was handed to (its queue row, else its record's `engine_id`; this computer's for a prompt Studio does not know). */
  engineOf: (promptId: string) => EngineClient;
  /** Take an active job off the engine it is on (deleted from its queue, interrupted if it runs), as cancel does. */
  stopActive: (promptId: string) => Promise<void>;
  folders: JobFolders;
  /** Studio's queue order of the active jobs, each with its `engine_id` and `position`. */
  queueOrder: (active: JobRecord[]) => JobRecord[];
}

export class JobQueries {
  constructor(private readonly deps: JobQueriesDeps) {}

  /** The job if it exists for `actor` (another person's job is, to them, no job at all). */
  visible(promptId: string, actor: Actor): JobRecord | null {
    const job = this.deps.jobs.get(promptId);
    return job && mayTouch(actor, job.owner_id) ? job : null;
  }

  /** `GET /api/run/status/{id}`. */
  async status(promptId: string, actor: Actor = OWNER_ACTOR): Promise<Record<string, unknown>> {
    // Someone who sees only their own work learns nothing from the engine about other prompts:
    // another person's job answers as an id nobody ever submitted does.
    if (!seesEveryone(actor) && !this.visible(promptId, actor)) return { status: 'pending', prompt_id: promptId, queue_position: null };
    const progress = this.deps.monitor.progress(promptId);
    if (progress?.status === 'running') return { prompt_id: promptId, ...progress };
    const job = this.deps.jobs.get(promptId);
    if (job?.status === 'error' || job?.status === 'stalled') return errorBody(promptId, job.error);
    // The status endpoint knows four states (spec); a cancelled job ends it as an error that says so.
    if (job?.status === 'cancelled') return { ...errorBody(promptId, 'Cancelled'), cancelled: true };
    // Finished, or unknown to Studio (a prompt submitted by someone else): the engine's history says.
    const settled = progress?.status === 'completed' || progress?.status === 'error' || progress?.status === 'interrupted';
    const engine = this.deps.engineOf(promptId);
    if (!job || job.status === 'completed' || settled) {
      const history = await engine.history(promptId).catch(() => null);
      if (history) {
        if (history.status?.status_str === 'error') return errorBody(promptId, job?.error ?? historyError(history));
        const files = parseHistoryOutputs(history).filter((f) => (f.type ?? 'output') === 'output');
        return { status: 'completed', outputs: outputsByKind(files) };
      }
      // The engine forgot it (it restarted): the record still knows the primary output.
      if (job?.status === 'completed') return { status: 'completed', outputs: job.output ? { [kindOf(job.output.filename)]: job.output } : {} };
    }
    const queue = await engine.queue().catch(() => null);
    if (queue?.running.includes(promptId)) {
      // Running, but no live progress (Studio restarted, or the socket missed the start).
      return { prompt_id: promptId, ...(progress ?? storedProgress(job ?? { prompt_id: promptId, status: 'running' })), status: 'running' };
    }
    if (job?.status === 'queued') {
      // Studio's queue order: the jobs on the engine first, then those waiting in Studio.
      const place = this.queue().filter((j) => j.status === 'queued').findIndex((j) => j.prompt_id === promptId);
      return { status: 'pending', prompt_id: promptId, queue_position: place >= 0 ? place + 1 : null };
    }
    const index = queue?.pending.indexOf(promptId) ?? -1;
    // Spec (Job status): a prompt not yet known to be running is `pending`, also one Studio never
    // saw (it may have been submitted a moment ago, or elsewhere): 200, not 404.
    return { status: 'pending', prompt_id: promptId, queue_position: index >= 0 ? index + 1 : null };
  }

  /** The file `GET /api/run/result/{id}` streams: from the job folder, else through the engine. */
  async result(promptId: string, outputType: 'video' | 'image', actor: Actor = OWNER_ACTOR): Promise<ResultSource> {
    const job = this.visible(promptId, actor);
    if (!job) throw new DomainError('not_found', `Job not found: ${promptId}`);
    if (job.status !== 'completed') throw new DomainError('not_found', `Result not ready: job is ${job.status}`);
    const onDisk = job.output_dir && this.deps.folders.exists(job.output_dir) ? pickFile(filesBelow(this.deps.folders.pathOf(job.output_dir)).map((f) => f.file), outputType) : null;
    if (onDisk) return { path: onDisk, within: this.deps.folders.pathOf(job.output_dir!), filename: path.basename(onDisk), contentType: contentTypeOf(onDisk) };
    if (!job.output) throw new DomainError('not_found', `Job ${promptId} has no output`);
    const response = await this.deps.engineOf(promptId).viewStream({ filename: job.output.filename, subfolder: job.output.subfolder, type: job.output.type });
    if (!response || response.status !== 200) {
      response?.body.destroy();
      throw new DomainError('not_found', `Output file of ${promptId} is missing`);
    }
    return { stream: response.body, filename: job.output.filename, contentType: contentTypeOf(job.output.filename) };
  }

  /** `GET /api/admin/queue`: active jobs with progress (stored status after a restart). */
  queue(actor: Actor = OWNER_ACTOR): JobRecord[] {
    const active = this.deps.jobs.active();
    // Ordered among everyone's (positions are places in the one queue), then narrowed to the actor's.
    const ordered = this.deps.queueOrder(active).filter((job) => mayTouch(actor, job.owner_id));
    return ordered.map((job) => {
      const live = this.deps.monitor.progress(job.prompt_id);
      // A prompt followed again after a restart runs before its new tracker hears from it.
      const progress = live && live.status === 'pending' && job.status === 'running' ? { ...live, status: 'running' as const } : (live ?? storedProgress(job));
      return { ...job, progress };
    });
  }

  /** `GET /api/admin/history/{prompt_id}`: one job (queued, running or finished), with progress while active. */
  job(promptId: string, actor: Actor = OWNER_ACTOR): JobRecord {
    const job = this.visible(promptId, actor);
    if (!job) throw new DomainError('not_found', `Job not found: ${promptId}`);
    if (job.status !== 'queued' && job.status !== 'running') return job;
    return this.queue().find((j) => j.prompt_id === promptId) ?? job;
  }

  /** `POST /api/admin/history/{prompt_id}/star`: the record as it is now. */
  star(promptId: string, starred: boolean, actor: Actor = OWNER_ACTOR): JobRecord {
    const job = this.visible(promptId, actor) ? this.deps.lifecycle.star(promptId, starred) : null;
    if (!job) throw new DomainError('not_found', `Job not found: ${promptId}`);
    return job;
  }

  /** `GET /api/admin/history`. */
  history(query: HistoryQuery, actor: Actor = OWNER_ACTOR): JobRecord[] {
    // Owner and admins choose whose (everyone's by default); the others see only their own.
    return this.deps.jobs.history(seesEveryone(actor) ? query : { ...query, ownerId: actor.userId });
  }

  /** `POST /api/admin/history/delete`: records and folders; running jobs are cancelled first. */
  async delete(promptIds: readonly string[], actor: Actor = OWNER_ACTOR): Promise<{ deleted: string[]; errors: string[] }> {
    const errors: string[] = [];
    const known = promptIds.filter((id) => {
      if (this.visible(id, actor)) return true;
      errors.push(`${id}: not found`);
      return false;
    });
    for (const id of known) {
      const job = this.deps.jobs.get(id);
      if (job && (job.status === 'queued' || job.status === 'running')) {
        // Interrupted first on the engine it is on, as cancel does (a remote one would run it to the end).
        this.deps.monitor.untrack(id);
        await this.deps.stopActive(id).catch(() => undefined);
      }
    }
    const removed = this.deps.lifecycle.remove(known);
    for (const job of removed) {
      if (job.output_dir) {
        try {
          this.deps.folders.remove(job.output_dir);
        } catch (err) {
          errors.push(`${job.prompt_id}: output folder not removed (${(err as Error).message})`);
        }
      }
    }
    return { deleted: removed.map((j) => j.prompt_id), errors };
  }
}

function kindOf(filename: string): string {
  return mediaKindOf(filename) ?? 'file';
}

function outputsByKind(files: EngineOutputFile[]): Record<string, { filename: string; subfolder: string; type: string }> {
  const out: Record<string, { filename: string; subfolder: string; type: string }> = {};
  const inFinal = (subfolder: string) => /(^|[/\\])final$/.test(subfolder);
  for (const file of files) {
    const kind = isVideoOutput(file) ? 'video' : kindOf(file.filename);
    const current = out[kind];
    // The last file of each kind wins, but a file in `final/` is never displaced by one outside it.
    if (!current || inFinal(file.subfolder) || !inFinal(current.subfolder)) {
      out[kind] = { filename: file.filename, subfolder: file.subfolder, type: file.type ?? 'output' };
    }
  }
  return out;
}

/** Prefer `final/`; a video for `video` (falling back to an image), an image for `image`. */
function pickFile(files: string[], outputType: 'video' | 'image'): string | null {
  const rank = (file: string) => (file.split(path.sep).includes('final') ? 0 : 1);
  const sorted = [...files].sort((a, b) => rank(a) - rank(b));
  const videos = sorted.filter((f) => mediaKindOf(f) === 'video');
  const images = sorted.filter((f) => mediaKindOf(f) === 'image');
  return (outputType === 'video' ? (videos[0] ?? images[0]) : images[0]) ?? null;
}

/** The `error` status body (the spec leaves it open; documented in the README). */
function errorBody(promptId: string, error: string | null): Record<string, unknown> {
  return { status: 'error', prompt_id: promptId, error: error ?? '[Engine] The engine reported an error' };
}

/** A job's progress when nobody is following it (Studio restarted): a tracker that has heard nothing yet, at the stored status. */
function storedProgress(job: Pick<JobRecord, 'prompt_id' | 'status'>): ProgressObject {
  return { ...new ProgressTracker({ promptId: job.prompt_id, graph: {} }).snapshot(), status: job.status === 'running' ? 'running' : 'pending' };
}

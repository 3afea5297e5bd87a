/**
 * What each person may run and how much (issue 43, points 3 and 4): their allow-lists (workflows;
 * model files the built graph names) and their quotas (jobs per hour and per day, jobs waiting at
 * once, engine seconds per day), checked on every submission before anything is written. The
 * owner has no limits; anyone else (an admin too) only those stored on them (`users/`).
 */
import { DomainError } from '../domain-error.js';
import { modelFilesOf } from '../engine/pool/engine-needs.js';
import { listSourceOf } from '../engine/prompt-rules/list-sources.js';
import type { ApiGraph } from '../engine/engine-graph.js';
import type { Allow, QuotaUse, Quotas } from '../contracts/users.contract.js';
import { OWNER_ID } from '../contracts/users.contract.js';
import { fileStamp } from '../time.js';
import type { JobStore } from './job.store.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** A full waiting line frees up as jobs finish, which nobody can foresee: ask again after this long. */
const WAITING_RETRY_S = 30;

/** Older folder names the engine still reads: an entry naming either matches. */
const LEGACY_FOLDER: Record<string, string> = { diffusion_models: 'unet', text_encoders: 'clip' };

export interface PersonLimits {
  quotas: Quotas | null;
  allow: Allow | null;
}

export interface RunLimitsDeps {
  jobs: Pick<JobStore, 'submittedSince' | 'activeCountOf'>;
  /** A person's stored limits (null: none, or no such person). */
  limitsOf: (userId: string) => PersonLimits | null;
  now?: () => number;
}

export class RunLimits {
  private readonly now: () => number;

  constructor(private readonly deps: RunLimitsDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** The checks of one person's run. */
  of(userId: string): { checkWorkflow(workflowId: string): void; checkModels(graph: ApiGraph): void; checkQuotas(): void } {
    return {
      checkWorkflow: (workflowId) => this.checkWorkflow(userId, workflowId),
      checkModels: (graph) => this.checkModels(userId, graph),
      checkQuotas: () => this.checkQuotas(userId),
    };
  }

  /** A 403 naming the workflow when `userId` may not run it. */
  private checkWorkflow(userId: string, workflowId: string): void {
    const allowed = this.limits(userId)?.allow?.workflows;
    if (allowed && !allowed.includes(workflowId)) throw new DomainError('forbidden', `You may not run the workflow "${workflowId}"`, { workflow: workflowId });
  }

  /** A 403 naming the first model file of the built graph outside `userId`'s allow-list. */
  private checkModels(userId: string, graph: ApiGraph): void {
    const allowed = this.limits(userId)?.allow?.models;
    if (!allowed) return;
    for (const use of modelFilesOf(graph)) {
      if (!allowed.some((entry) => entryAllows(entry, use.classType, use.input, use.file))) {
        throw new DomainError('forbidden', `You may not use the model "${use.file}" (${use.classType}.${use.input})`, { model: use.file });
      }
    }
  }

  /** A 429 (with `retry_after` seconds) when one more job would go past one of `userId`'s quotas. */
  private checkQuotas(userId: string): void {
    const quotas = this.limits(userId)?.quotas;
    if (!quotas) return;
    const now = this.now();
    const day = this.deps.jobs.submittedSince(userId, now - DAY_MS);
    const hour = day.filter((j) => j.createdMs >= now - HOUR_MS);
    for (const [name, limit] of Object.entries(quotas)) {
      if (limit === 0) throw new DomainError('forbidden', `Your quota allows no jobs (${name.replace(/_/g, ' ')} is 0)`);
    }
    if (isSet(quotas.waiting) && this.deps.jobs.activeCountOf(userId) >= quotas.waiting) {
      throw tooMany(`${plural(quotas.waiting, 'job')} waiting at once reached; you can run again when one of them finishes (ask again in ${WAITING_RETRY_S} s)`, WAITING_RETRY_S);
    }
    for (const [limit, jobs, windowMs, what] of [
      [quotas.jobs_per_hour, hour, HOUR_MS, 'per hour'],
      [quotas.jobs_per_day, day, DAY_MS, 'per day'],
    ] as const) {
      if (!isSet(limit) || jobs.length < limit) continue;
      // Below the limit again once this many of the oldest counted jobs left the window.
      const freeAt = jobs[jobs.length - limit]!.createdMs + windowMs;
      throw tooMany(`${plural(limit, 'job')} ${what} reached; you can run again at ${clock(freeAt, now)}`, seconds(freeAt - now));
    }
    const limit = quotas.gpu_seconds_per_day;
    if (!isSet(limit)) return;
    let used = day.reduce((sum, j) => sum + (j.duration ?? 0), 0);
    if (used < limit) return;
    // The oldest jobs leave the window first: the one whose leaving brings the sum below the limit.
    let freeAt = now + DAY_MS;
    for (const job of day) {
      used -= job.duration ?? 0;
      if (used < limit) {
        freeAt = job.createdMs + DAY_MS;
        break;
      }
    }
    throw tooMany(`${limit} GPU-seconds per day reached; you can run again at ${clock(freeAt, now)}`, seconds(freeAt - now));
  }

  /** What `userId` used of the quotas, over the same windows. */
  use(userId: string): QuotaUse {
    const now = this.now();
    const day = this.deps.jobs.submittedSince(userId, now - DAY_MS);
    return {
      jobs_this_hour: day.filter((j) => j.createdMs >= now - HOUR_MS).length,
      jobs_today: day.length,
      waiting: this.deps.jobs.activeCountOf(userId),
      gpu_seconds_today: day.reduce((sum, j) => sum + (j.duration ?? 0), 0),
    };
  }

  private limits(userId: string): PersonLimits | null {
    return userId === OWNER_ID ? null : this.deps.limitsOf(userId);
  }
}

/**
 * An allow-list entry ending in `/` is a folder: the model's engine folder and path below it
 * (`loras/`, `checkpoints/sdxl/`) or a subfolder of the value alone (`sdxl/`). Any other entry is
 * a file: the value as the graph names it, with its engine folder, or a bare name matching its
 * file name in any subfolder.
 */
function entryAllows(entry: string, classType: string, input: string, file: string): boolean {
  const value = file.replace(/\\/g, '/');
  const want = entry.replace(/\\/g, '/').replace(/^\/+/, '');
  // The engine folder the loader reads the value from (the stand-in fills its lists by the same rule).
  const source = listSourceOf(classType, input);
  const folder = source && 'models' in source ? source.models : undefined;
  const paths = [value, ...(folder ? [`${folder}/${value}`] : []), ...(folder && LEGACY_FOLDER[folder] ? [`${LEGACY_FOLDER[folder]}/${value}`] : [])];
  if (want.endsWith('/')) return paths.some((p) => p.startsWith(want));
  if (paths.includes(want)) return true;
  return !want.includes('/') && value.slice(value.lastIndexOf('/') + 1) === want;
}

function isSet(limit: number | null | undefined): limit is number {
  return typeof limit === 'number';
}

function tooMany(message: string, retryAfterS: number): DomainError {
  return new DomainError('too_many', message, { retry_after: retryAfterS });
}

function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/** When, in words, in the box's own time (one clock, #47: the instant the UI shows on the box); the date too when not today. */
function clock(ms: number, now: number): string {
  const at = fileStamp(new Date(ms));
  const time = `${at.slice(9, 11)}:${at.slice(11, 13)}`;
  return at.slice(0, 8) === fileStamp(new Date(now)).slice(0, 8) ? time : `${time} on ${at.slice(0, 4)}-${at.slice(4, 6)}-${at.slice(6, 8)}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

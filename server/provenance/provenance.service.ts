/**
 * Run again: a job's lock compared with this Studio before anything runs. The same → it runs
 * (the job's own retry here: same parameters, seeds and input; a lock from elsewhere: its
 * workflow with its parameters and seeds). Differences → they are listed with their fixes and
 * nothing runs unless the caller says to run anyway.
 */
import { DomainError } from '../domain-error.js';
import type { Actor } from '../http/actor.js';
import type { ExecuteResult, JobRecord } from '../contracts/jobs.contract.js';
import type { JobLock, LockReport, RunAgainResult } from '../contracts/provenance.contract.js';
import type { JobOrigin } from '../jobs/runner.service.js';
import type { LockService } from './lock.service.js';

export interface ProvenanceServiceDeps {
  locks: LockService;
  /** A job the actor may see, else null. */
  visible(promptId: string, actor: Actor): JobRecord | null;
  retry(promptId: string, submitter: string, actor: Actor): Promise<{ prompt_id: string }>;
  execute(workflowId: string, params: Record<string, unknown>, image: undefined, origin: JobOrigin): Promise<ExecuteResult>;
}

export class ProvenanceService {
  constructor(private readonly deps: ProvenanceServiceDeps) {}

  /** `GET /api/admin/history/{id}/lock`: not found for a job the actor may not see, as every job route. */
  async report(promptId: string, actor: Actor): Promise<LockReport> {
    if (!this.deps.visible(promptId, actor)) throw new DomainError('not_found', `Job not found: ${promptId}`);
    const lock = await this.deps.locks.settled(promptId);
    if (!lock) throw new DomainError('not_found', `Job ${promptId} has no lock (it was submitted before Studio recorded locks, or its recording failed: see the log)`);
    return this.reportOf(lock);
  }

  async reportOf(lock: JobLock): Promise<LockReport> {
    return { lock, differences: await this.deps.locks.compare(lock) };
  }

  async runJobAgain(promptId: string, runAnyway: boolean, submitter: string, actor: Actor): Promise<RunAgainResult> {
    const { differences } = await this.report(promptId, actor);
    if (differences.length > 0 && !runAnyway) return { status: 'differences', differences };
    const { prompt_id } = await this.deps.retry(promptId, submitter, actor);
    return { status: 'queued', prompt_id, differences };
  }

  async runLock(lock: JobLock, runAnyway: boolean, submitter: string, actor: Actor): Promise<RunAgainResult> {
    if (!lock.workflow.id) throw new DomainError('invalid', 'the lock names no workflow to run');
    const differences = await this.deps.locks.compare(lock);
    if (differences.length > 0 && !runAnyway) return { status: 'differences', differences };
    const params = { ...lock.params, ...lock.seeds };
    const result = await this.deps.execute(lock.workflow.id, params, undefined, { submitter, ownerId: actor.userId, actor, countsFor: actor.userId });
    return { status: 'queued', prompt_id: result.prompt_id, differences };
  }
}

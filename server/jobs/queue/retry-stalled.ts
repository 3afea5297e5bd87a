/**
 * "Retry all stalled": every stalled job that has not been retried yet is retried (same
 * parameters and seeds, `retry_of` set), oldest first so the queue keeps their order. A stalled
 * job some job already names as its `retry_of` is skipped: a second click does not double them.
 */
import type { RetryStalledResult } from '../../contracts/queue.contract.js';
import type { JobStore } from '../job.store.js';
import { OWNER_ACTOR, seesEveryone, type Actor } from '../../http/actor.js';

export interface RetryStalledDeps {
  jobs: JobStore;
  retry: (promptId: string, submitter: string, actor: Actor) => Promise<{ prompt_id: string; retry_of: string }>;
}

export class RetryStalled {
  constructor(private readonly deps: RetryStalledDeps) {}

  /** The retries belong to `actor`, who retries only the stalled jobs they see. */
  async run(submitter: string, actor: Actor = OWNER_ACTOR): Promise<RetryStalledResult> {
    const retriedAlready = new Set(this.deps.jobs.retriedIds());
    const stalled = this.deps.jobs.history({ status: 'stalled', ...(seesEveryone(actor) ? {} : { ownerId: actor.userId }) }).reverse();
    const result: RetryStalledResult = { retried: [], errors: [] };
    for (const job of stalled) {
      if (retriedAlready.has(job.prompt_id)) continue;
      try {
        result.retried.push(await this.deps.retry(job.prompt_id, submitter, actor));
      } catch (err) {
        result.errors.push(`${job.prompt_id}: ${(err as Error).message}`);
      }
    }
    return result;
  }
}

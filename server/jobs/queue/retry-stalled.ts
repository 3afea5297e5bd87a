/**
 * "Retry all stalled": every stalled job that has not been retried yet is retried (same
 * parameters and seeds, `retry_of` set), oldest first so the queue keeps their order. A stalled
 * job some job already names as its `retry_of` is skipped: a second click does not double them.
 * The retries belong to `actor`, who retries only the stalled jobs they see.
 */
import type { RetryStalledResult } from '../../contracts/queue.contract.js';
import type { JobStore } from '../job.store.js';
import { seesEveryone, type Actor } from '../../http/actor.js';
import type { RunnerService } from '../runner.service.js';

export async function retryStalled(jobs: JobStore, runner: Pick<RunnerService, 'retry'>, submitter: string, actor: Actor): Promise<RetryStalledResult> {
  const retriedAlready = new Set(jobs.retriedIds());
  const stalled = jobs.history({ status: 'stalled', ...(seesEveryone(actor) ? {} : { ownerId: actor.userId }) }).reverse();
  const result: RetryStalledResult = { retried: [], errors: [] };
  for (const job of stalled) {
    if (retriedAlready.has(job.prompt_id)) continue;
    try {
      result.retried.push(await runner.retry(job.prompt_id, submitter, actor));
    } catch (err) {
      result.errors.push(`${job.prompt_id}: ${(err as Error).message}`);
    }
  }
  return result;
}

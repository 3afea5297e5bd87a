/**
 * A restart does not drop the queue. The spec marks the jobs a restart left unfinished `stalled`
 * (the jobs waiting in Studio's queue, `restart`; the ones on the engine Studio runs itself and
 * restarted with it, `engine_restart`), and that record stays. With QUEUE_RESUME_AFTER_RESTART on
 * (the default) each of them is then retried at once, as `retry` does — a new job, same parameters
 * and seeds, `retry_of` naming the stalled one — in the queue's order before the restart: the
 * jobs that were on an engine first, then the waiting ones. The retries wait for the first check
 * of this computer's engine (which stalls its lost jobs), so they keep that order; a job stalled
 * by the restart later than that (an engine that answers late) is retried when it is.
 */
import type { EventBus } from '../../events/event-bus.js';
import type { Logger } from '../../logging.js';
import type { JobLifecycle } from '../job-lifecycle.js';

export interface ResumeDeps {
  enabled: boolean;
  lifecycle: JobLifecycle;
  retry: (promptId: string, submitter: string) => Promise<{ prompt_id: string; retry_of: string }>;
  events: EventBus;
  logger: Logger;
}

export class ResumeAfterRestart {
  /** The queue before the restart: prompt id → its place and submitter. */
  private readonly before = new Map<string, { index: number; submitter: string }>();
  private readonly stalled = new Set<string>();
  private resumed = false;
  private running: Promise<void> = Promise.resolve();
  private off: (() => void) | null = null;

  constructor(private readonly deps: ResumeDeps) {}

  /** Follow stalls from now on (before the queue's recovery stalls the waiting jobs). */
  watch(): void {
    if (!this.deps.enabled) return;
    this.off = this.deps.lifecycle.subscribe((change) => {
      if (change.type !== 'job.stalled' || (change.reason.cause !== 'restart' && change.reason.cause !== 'engine_restart')) return;
      this.stalled.add(change.job.prompt_id);
      if (this.resumed) this.resume();
    });
  }

  /** The queue as the last run left it, in order (`JobQueueService.recover`). */
  remember(rows: ReadonlyArray<{ prompt_id: string; submitter: string }>): void {
    rows.forEach((row, index) => this.before.set(row.prompt_id, { index, submitter: row.submitter }));
  }

  /** Retry every job stalled by the restart and not retried yet, in the old queue order. */
  resume(): void {
    if (!this.deps.enabled) return;
    this.resumed = true;
    this.running = this.running.then(() => this.retryAll());
  }

  stop(): void {
    this.off?.();
    this.off = null;
    this.stalled.clear();
  }

  private async retryAll(): Promise<void> {
    const place = (id: string) => this.before.get(id)?.index ?? Number.MAX_SAFE_INTEGER;
    const ids = [...this.stalled].sort((a, b) => place(a) - place(b));
    this.stalled.clear();
    const retried: Array<{ prompt_id: string; retry_of: string }> = [];
    for (const id of ids) {
      try {
        retried.push(await this.deps.retry(id, this.before.get(id)?.submitter ?? 'anonymous'));
      } catch (err) {
        this.deps.logger.warn(`the job ${id} stalled by the restart could not be retried`, err);
      }
    }
    if (retried.length) {
      this.deps.events.emit('queue.restart_retried', 'info', `Studio restarted: ${retried.length} job(s) it left unfinished were retried (each names its stalled job in retry_of)`, { retried: retried.map((r) => r.prompt_id), retry_of: retried.map((r) => r.retry_of) });
    }
  }
}

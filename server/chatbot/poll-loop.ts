/**
 * The long-polling loop, with a delay, a cap and a state a user can see. Network and
 * 5xx errors back off exponentially up to a cap; a 429 waits exactly `retry_after`; a rejected
 * token ends the loop. Updates are handled one at a time in order: handlers answer quickly and
 * leave long work (a run) to background tasks, so a slow job never stalls the chat.
 */
import type { Update } from 'grammy/types';
import type { Logger } from '../logging.js';
import { ChatPlatformError, type ChatPlatformClient } from './chat-platform.client.js';
import { backoffDelay } from '../process/backoff.js';
import type { Clock } from '../process/clock.js';

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
}

/** What status shows of the loop between two polls. */
export interface PollState {
  phase: 'polling' | 'backing_off' | 'ended';
  /** The last polling error in plain words, kept until a poll succeeds. */
  lastError: string | null;
  /** When the next poll is due while backing off (epoch ms). */
  retryAt: number | null;
  /** Polls failed in a row (0 once one succeeds): the page says "failing" rather than "running". */
  failures: number;
}

export interface PollLoopDeps {
  client: ChatPlatformClient;
  handle(update: Update): Promise<void>;
  /** The next update id to ask for, kept across restarts so no update is handled twice. */
  offset: { get(): number; set(value: number): void };
  pollTimeoutS: number;
  backoff: BackoffOptions;
  /** The token was rejected: the loop has ended for good. */
  onFatal(message: string): void;
  logger: Logger;
  /** Backoff waits and the retry time status shows. */
  clock: Clock;
}

/** Polls until stopped or until the platform rejects the token. */
export class PollLoop {
  readonly state: PollState = { phase: 'polling', lastError: null, retryAt: null, failures: 0 };
  private readonly abort = new AbortController();
  private done: Promise<void> | null = null;

  constructor(private readonly deps: PollLoopDeps) {}

  /** Start polling in the background. */
  start(): void {
    this.done ??= this.run().catch((err: unknown) => this.deps.logger.error('chat bot polling loop failed', err));
  }

  /** End the poll in flight and wait for the loop to finish. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.done;
  }

  get ended(): boolean {
    return this.state.phase === 'ended';
  }

  private async run(): Promise<void> {
    const { signal } = this.abort;
    let failures = 0;
    while (!signal.aborted) {
      let updates: Update[];
      try {
        updates = await this.deps.client.getUpdates(this.deps.offset.get(), this.deps.pollTimeoutS, signal);
      } catch (err) {
        if (signal.aborted) break;
        const error = err instanceof ChatPlatformError ? err : new ChatPlatformError('network', String(err));
        if (error.kind === 'fatal') {
          this.state.lastError = error.message;
          this.deps.onFatal(error.message);
          break;
        }
        const delay =
          error.kind === 'rate_limited' ? (error.retryAfterS ?? 1) * 1000 : backoffDelay(failures + 1, { baseMs: this.deps.backoff.initialMs, maxMs: this.deps.backoff.maxMs });
        failures++;
        this.state.failures = failures;
        this.state.phase = 'backing_off';
        this.state.lastError = error.kind === 'rate_limited' ? `rate limited by the chat platform: ${error.message}` : error.message;
        this.state.retryAt = this.deps.clock.now() + delay;
        this.deps.logger.warn(`chat bot: getUpdates failed (${this.state.lastError}); next poll in ${Math.round(delay / 100) / 10} s`);
        await this.deps.clock.sleep(delay, signal);
        continue;
      }
      failures = 0;
      this.state.failures = 0;
      this.state.phase = 'polling';
      this.state.lastError = null;
      this.state.retryAt = null;
      for (const update of updates) {
        if (signal.aborted) break;
        this.deps.offset.set(update.update_id + 1);
        try {
          await this.deps.handle(update);
        } catch (err) {
          this.deps.logger.error(`chat bot: update ${update.update_id} failed`, err);
        }
      }
    }
    this.state.phase = 'ended';
    this.state.retryAt = null;
  }
}

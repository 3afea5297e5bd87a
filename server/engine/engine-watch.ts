/**
 * External engine mode: nothing to spawn, so watch the engine someone else runs. Probes its
 * health URL on a fixed interval and reports `running` or `unreachable`: like every loop
 * that polls, it has a delay, a per-probe cap and a state a user can see.
 */
import { silentLogger, type Logger } from '../logging.js';
import { probeHealth, PROBE_TIMEOUT_MS } from '../process/health-probe.js';
import { SupervisorStateError } from '../process/supervisor.js';

export type WatchStatus = 'stopped' | 'starting' | 'running' | 'unreachable';

export interface WatchState {
  status: WatchStatus;
  lastError: string | null;
}

export interface EngineWatchOptions {
  healthUrl: string;
  /** Delay between probes (default 5000). */
  intervalMs?: number;
  /** Cap on one probe (default PROBE_TIMEOUT_MS). */
  probeTimeoutMs?: number;
  logger?: Logger;
  /** Sent with each probe (an agent Studio's `X-API-Key`). */
  headers?: Record<string, string>;
}

/** Watches an engine we do not own: periodic health probes, a visible status. */
export class EngineWatch {
  readonly #opts: EngineWatchOptions & Required<Pick<EngineWatchOptions, 'intervalMs' | 'probeTimeoutMs' | 'logger'>>;
  readonly #listeners = new Set<(state: WatchState) => void>();
  #state: WatchState = { status: 'stopped', lastError: null };
  /** Aborted by stop(): ends the in-flight probe and the pending delay together. */
  #loop: AbortController | null = null;
  #timer: NodeJS.Timeout | null = null;

  constructor(options: EngineWatchOptions) {
    this.#opts = {
      ...options,
      intervalMs: options.intervalMs ?? 5000,
      probeTimeoutMs: options.probeTimeoutMs ?? PROBE_TIMEOUT_MS,
      logger: options.logger ?? silentLogger,
    };
  }

  /** A copy of the current state. */
  get state(): WatchState {
    return { ...this.#state };
  }

  /** Call `listener` whenever the status or error changes; returns the unsubscribe. */
  onStateChange(listener: (state: WatchState) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Probe once (so the state is known when this resolves), then keep probing. Never throws when unreachable. */
  async start(): Promise<void> {
    if (this.#loop) throw new SupervisorStateError(`engine watch is already ${this.#state.status}`);
    const loop = new AbortController();
    this.#loop = loop;
    this.#set({ status: 'starting', lastError: null });
    await this.#probe(loop);
  }

  /** End the loop; an in-flight probe is abandoned. */
  stop(): Promise<void> {
    this.#loop?.abort();
    this.#loop = null;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#state.status !== 'stopped') this.#set({ status: 'stopped', lastError: null });
    return Promise.resolve();
  }

  async #probe(loop: AbortController): Promise<void> {
    const result = await probeHealth(this.#opts.healthUrl, loop.signal, this.#opts.probeTimeoutMs, this.#opts.headers);
    if (loop.signal.aborted) return;
    const next: WatchState = result.ok
      ? { status: 'running', lastError: null }
      : { status: 'unreachable', lastError: `GET ${this.#opts.healthUrl}: ${result.error ?? 'failed'}` };
    if (next.status !== this.#state.status || next.lastError !== this.#state.lastError) {
      if (next.status === 'unreachable') this.#opts.logger.warn(`engine unreachable: ${next.lastError}`);
      else this.#opts.logger.info(`engine answers at ${this.#opts.healthUrl}`);
      this.#set(next);
    }
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.#probe(loop);
    }, this.#opts.intervalMs);
  }

  #set(state: WatchState): void {
    this.#state = state;
    for (const listener of this.#listeners) {
      try {
        listener(this.state);
      } catch (err) {
        this.#opts.logger.error('engine watch: state listener failed', err);
      }
    }
  }
}

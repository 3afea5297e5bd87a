/**
 * The one shape of a capability as the composition root (`studio.ts`) sees it. Each capability's
 * `<name>.module.ts` exports a `create…Module(deps)` that builds its services from what it is
 * given (config, the shared infrastructure, the modules listed before it) and returns a
 * `StudioModule`, plus the few things later modules may use of it (named in ARCHITECTURE.md).
 *
 * Phases; the root runs each for every module in list order, and a module comes after the ones
 * it uses:
 * 1. build: the `create…Module` call. Constructs and subscribes; no I/O beyond opening what it owns.
 * 2. `prepare()`: before Studio listens. Load what the first requests read (seeded files,
 *    catalogs, mirrors) and attach to the sources the module follows. A failure Studio can live
 *    with is the module's to log; one it throws stops Studio from starting.
 * 3. listen (the root).
 * 4. `start()`: after Studio listens. Background work: queues, pollers, the chat bot, children.
 * 5. `stop()`, in reverse list order (a module stops before the ones it uses): end that work.
 *    The root waits at most `stopDeadlineMs` (default 5 s), logs a module that overran and goes on.
 */
import type express from 'express';
import type { Logger } from './logging.js';

const DEFAULT_STOP_DEADLINE_MS = 5_000;

export interface StudioModule {
  /** For logs: `engine`, `jobs`, `catalog`, … */
  readonly name: string;
  /** Mounted after authentication, in module order. */
  readonly routers: readonly express.Router[];
  prepare?(): Promise<void>;
  start?(): void | Promise<void>;
  stop?(): void | Promise<void>;
  /** How long `stop()` may take before Studio moves on (default `DEFAULT_STOP_DEADLINE_MS`). */
  readonly stopDeadlineMs?: number;
}

/** Wait for `work`, but not longer than `ms`; `onTimeout` runs when the deadline passed first. */
export async function withDeadline(work: Promise<unknown>, ms: number, onTimeout: () => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)));
  const result = await Promise.race([work.then(() => 'done' as const, () => 'done' as const), deadline]);
  clearTimeout(timer);
  if (result === 'timeout') onTimeout();
}

/** Stop `modules` in reverse order, each within its deadline. */
export async function stopModules(modules: readonly StudioModule[], logger: Logger): Promise<void> {
  for (const module of [...modules].reverse()) {
    if (!module.stop) continue;
    const deadline = module.stopDeadlineMs ?? DEFAULT_STOP_DEADLINE_MS;
    const stopping = Promise.resolve().then(() => module.stop?.());
    await withDeadline(stopping, deadline, () => logger.warn(`${module.name} did not stop within ${deadline} ms`));
  }
}

/**
 * A port to a module built later in the composition root, for the one kind of need that cannot
 * wait its turn: two modules that use each other (the catalog asks the LLM module about its files,
 * the LLM module queues downloads through the catalog). Bound once, right after the later module
 * is built; a call before that is a wiring mistake and says so.
 */
export class LateBound<T> {
  private value: T | null = null;

  constructor(private readonly what: string) {}

  bind(value: T): void {
    if (this.value !== null) throw new Error(`${this.what} is bound twice`);
    this.value = value;
  }

  get(): T {
    if (this.value === null) throw new Error(`${this.what} is used before it is built`);
    return this.value;
  }
}

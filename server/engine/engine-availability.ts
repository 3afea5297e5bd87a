/**
 * What the engine client asks before each call: does Studio already know that the engine cannot
 * answer? The external watch probes it every few seconds and the supervisor sees it crash, so a
 * request need not wait out its own timeout against a hung or absent engine (minutes, with the
 * slow calls) to find out: it fails at once with the reason, and calls in flight when the engine
 * is lost are cut short. `stopped` and `starting` are not "known down" (tests and the boot run
 * requests then, and a refused connection fails fast anyway).
 */
import type { EngineStatus } from './engine-process.js';

/** What availability reads of a supervisor's, a watch's or an engine process's state. */
type HealthState = { status: string; lastError: string | null };

export interface EngineAvailability {
  /** Why the engine cannot be asked now, or null when it may be. */
  unavailableReason(): string | null;
  /** Calls `listener` each time the engine is found unavailable; returns the unsubscribe. */
  onLost(listener: (reason: string) => void): () => void;
}

const KNOWN_DOWN: ReadonlySet<string> = new Set<EngineStatus>(['unreachable', 'crashed', 'restarting']);

/** The availability of the engine `engine` supervises or watches. */
export function engineAvailability(engine: { readonly state: HealthState; onStateChange(listener: (state: HealthState) => void): () => void }): EngineAvailability {
  return {
    unavailableReason: () => reasonOf(engine.state),
    onLost: (listener) =>
      engine.onStateChange((state) => {
        const reason = reasonOf(state);
        if (reason) listener(reason);
      }),
  };
}

function reasonOf(state: HealthState): string | null {
  if (!KNOWN_DOWN.has(state.status)) return null;
  const why = state.lastError ? ` (${state.lastError})` : '';
  if (state.status === 'crashed') return `The engine crashed and was not restarted${why}: restart it from the System page.`;
  if (state.status === 'restarting') return `The engine is restarting after a crash${why}; try again in a few seconds.`;
  return `The engine does not answer${why}. Studio checks it every few seconds; this works again as soon as it answers.`;
}

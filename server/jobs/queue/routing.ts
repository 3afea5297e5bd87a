/**
 * Which engine takes a job, among those that can run it (they have every node type and model file
 * it needs) and have room: the least busy first (an idle engine before one that would only
 * prefetch it), then the one whose last job loaded the same checkpoint (the model is already in
 * its memory), then the faster one (measured steps per second), then the one idle longest.
 */
import type { EngineStats } from './engine-stats.js';

/** An engine's stats, and the jobs it holds now (running + prefetched). */
export type RouteCandidate = Omit<EngineStats, 'jobsDone'> & { id: string; held: number };

/** The best candidate for a job loading `checkpoint`, or null when there is none. */
export function chooseEngine<T extends RouteCandidate>(candidates: readonly T[], checkpoint: string | null): T | null {
  let best: T | null = null;
  for (const c of candidates) if (!best || better(c, best, checkpoint)) best = c;
  return best;
}

function better(a: RouteCandidate, b: RouteCandidate, checkpoint: string | null): boolean {
  if (a.held !== b.held) return a.held < b.held;
  const aWarm = checkpoint !== null && a.lastCheckpoint === checkpoint;
  const bWarm = checkpoint !== null && b.lastCheckpoint === checkpoint;
  if (aWarm !== bWarm) return aWarm;
  const aSpeed = a.stepsPerSecond ?? 0;
  const bSpeed = b.stepsPerSecond ?? 0;
  if (aSpeed !== bSpeed) return aSpeed > bSpeed;
  return a.idleSince < b.idleSince;
}

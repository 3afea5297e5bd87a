/**
 * What the queue learns of each engine from the jobs it ran: jobs done, the checkpoint its last
 * job loaded, sampler steps per second (the graph's `steps` over the time from start to end,
 * smoothed), and since when it has been idle. Routing reads it; the Engines page shows it.
 */
import type { ApiGraph } from '../../engine/engine-graph.js';
import { checkpointOf } from '../../engine/pool/engine-needs.js';

export interface EngineStats {
  jobsDone: number;
  lastCheckpoint: string | null;
  stepsPerSecond: number | null;
  /** Epoch ms since it has had nothing to run (0: never ran a job). */
  idleSince: number;
}

export class EngineStatsBook {
  private readonly stats = new Map<string, EngineStats>();
  private readonly started = new Map<string, number>();

  of(engineId: string): EngineStats {
    let s = this.stats.get(engineId);
    if (!s) this.stats.set(engineId, (s = { jobsDone: 0, lastCheckpoint: null, stepsPerSecond: null, idleSince: 0 }));
    return s;
  }

  jobStarted(promptId: string, now = Date.now()): void {
    this.started.set(promptId, now);
  }

  /** A job of `engineId` ended; `completed` ones count towards its speed. */
  jobEnded(engineId: string, promptId: string, graph: ApiGraph, completed: boolean, stillHeld: number, now = Date.now()): void {
    const s = this.of(engineId);
    const startedAt = this.started.get(promptId);
    this.started.delete(promptId);
    if (stillHeld === 0) s.idleSince = now;
    if (!completed) return;
    s.jobsDone++;
    s.lastCheckpoint = checkpointOf(graph) ?? s.lastCheckpoint;
    const steps = stepsOf(graph);
    if (startedAt === undefined || steps === 0 || now <= startedAt) return;
    const rate = (steps * 1000) / (now - startedAt);
    s.stepsPerSecond = s.stepsPerSecond === null ? rate : 0.7 * s.stepsPerSecond + 0.3 * rate;
  }
}

/** The sampler steps of a graph (every numeric `steps` input). */
function stepsOf(graph: ApiGraph): number {
  let steps = 0;
  for (const node of Object.values(graph)) {
    const value = node.inputs?.steps;
    if (typeof value === 'number' && Number.isFinite(value) && value > 0) steps += value;
  }
  return steps;
}

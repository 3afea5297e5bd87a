/**
 * What the progress display says about a job, as plain data (tested without a browser).
 */
import type { ProgressObject } from '../api/types.js';
import { formatDuration } from './format.js';

export interface ProgressFacts {
  stage: string;
  steps: string | null;
  nodes: string | null;
  eta: string | null;
  rate: string | null;
}

/** The words beside the bar: stage, step x/y, nodes, time left and step rate; a stale one drops the clock. */
export function progressFacts(p: ProgressObject | null, stale = false): ProgressFacts {
  const facts = liveFacts(p);
  return stale ? { ...facts, eta: null, rate: null, stage: `${facts.stage} (last known; Studio is unreachable)` } : facts;
}

function liveFacts(p: ProgressObject | null): ProgressFacts {
  if (!p || p.status === 'pending') return { stage: 'Waiting in the queue…', steps: null, nodes: null, eta: null, rate: null };
  const running = p.status === 'running';
  const stage =
    p.status === 'completed' ? 'Finished' : p.status === 'error' ? 'Failed' : p.status === 'interrupted' ? 'Interrupted' : p.node_title ? `Running: ${p.node_title}` : 'Running…';
  return {
    stage,
    steps: running && p.total_steps > 0 ? `Step ${p.step}/${p.total_steps}` : null,
    // A finished job's node count is noise (cached nodes never report), so only a running one shows it.
    nodes: running && p.total_nodes > 0 ? `Nodes ${p.nodes_done}/${p.total_nodes}` : null,
    eta: running ? timeLeft(p) : null,
    rate: running && p.step_rate !== null ? `${p.step_rate.toFixed(2)} steps/s` : null,
  };
}

/**
 * "About 1 min left" once there is something to measure by; before the first step or node ends
 * the estimate is a guess of 0 s, so it says "Starting…" instead (and nothing once under a second).
 */
function timeLeft(p: ProgressObject): string | null {
  if (p.step === 0 && p.nodes_done === 0) return 'Starting…';
  if (p.eta_seconds === null || p.eta_seconds < 1) return null;
  return `About ${formatDuration(p.eta_seconds)} left`;
}

/**
 * The running node's own steps as a percent (null when it reports none). The job's bar measures
 * the whole graph, so "Step 6/10" sits beside this bar, not beside the job's 20 %.
 */
export function stepPercent(p: ProgressObject | null): number | null {
  if (!p || p.status !== 'running' || p.total_steps <= 0) return null;
  return Math.max(0, Math.min(100, (p.step / p.total_steps) * 100));
}

/** Whether the job is over: its bar shows the final value at once instead of sliding there after the words say so. */
export function isSettled(p: ProgressObject | null): boolean {
  return p?.status === 'completed' || p?.status === 'error' || p?.status === 'interrupted';
}

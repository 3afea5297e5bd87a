/** Routing among the engines that can run a job: least busy, warm checkpoint, faster, idle longest. */
import { describe, expect, it } from 'vitest';
import { chooseEngine, type RouteCandidate } from '../../../server/jobs/queue/routing.js';

const engine = (id: string, over: Partial<RouteCandidate> = {}): RouteCandidate => ({ id, held: 0, lastCheckpoint: null, stepsPerSecond: null, idleSince: 0, ...over });

describe('chooseEngine', () => {
  it('has no answer without candidates', () => {
    expect(chooseEngine([], 'a.safetensors')).toBeNull();
  });

  it('prefers an idle engine to one that would only prefetch the job', () => {
    const pick = chooseEngine([engine('busy', { held: 1, lastCheckpoint: 'a.safetensors', stepsPerSecond: 9 }), engine('idle')], 'a.safetensors');
    expect(pick?.id).toBe('idle');
  });

  it('then the one whose last job loaded the same checkpoint', () => {
    const pick = chooseEngine([engine('fast', { stepsPerSecond: 9, lastCheckpoint: 'b.safetensors' }), engine('warm', { stepsPerSecond: 1, lastCheckpoint: 'a.safetensors' })], 'a.safetensors');
    expect(pick?.id).toBe('warm');
  });

  it('then the faster, then the one idle longest', () => {
    expect(chooseEngine([engine('slow', { stepsPerSecond: 1 }), engine('fast', { stepsPerSecond: 3 })], null)?.id).toBe('fast');
    expect(chooseEngine([engine('recent', { idleSince: 2_000 }), engine('longest', { idleSince: 1_000 })], null)?.id).toBe('longest');
  });
});

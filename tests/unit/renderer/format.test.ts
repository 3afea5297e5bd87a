import { describe, expect, it } from 'vitest';
import { friendlyJobError } from '../../../renderer/src/lib/errors.js';
import { etaSeconds, formatBytes, formatDuration, formatPercent, formatSpeed } from '../../../renderer/src/lib/format.js';
import { progressFacts } from '../../../renderer/src/lib/progress.js';
import type { ProgressObject } from '../../../renderer/src/api/types.js';

const running: ProgressObject = {
  status: 'running',
  node_title: 'KSampler',
  node_type: 'KSampler',
  step: 7,
  total_steps: 20,
  nodes_done: 3,
  total_nodes: 9,
  effective_total: 5,
  cached_count: 1,
  percent: 57,
  eta_seconds: 75,
  step_rate: 1.5,
  node_outputs: {},
};

describe('numbers for people', () => {
  it('formats sizes, speeds, durations and percents', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1536)).toBe('1.50 KB');
    expect(formatBytes(7.45 * 1024 ** 3)).toBe('7.45 GB');
    expect(formatBytes(-1)).toBe('—');
    expect(formatSpeed(0)).toBe('—');
    expect(formatSpeed(2 * 1024 * 1024)).toBe('2.00 MB/s');
    expect(formatDuration(42)).toBe('42 s');
    expect(formatDuration(185)).toBe('3 min 05 s');
    expect(formatDuration(3720)).toBe('1 h 02 min');
    expect(formatPercent(100)).toBe('100 %');
    expect(formatPercent(120)).toBe('100 %');
    expect(formatPercent(4.25)).toBe('4.3 %');
  });

  it('estimates the time left of a download only when it can', () => {
    expect(etaSeconds(25, 100, 5)).toBe(15);
    expect(etaSeconds(25, 0, 5)).toBeNull();
    expect(etaSeconds(25, 100, 0)).toBeNull();
    expect(etaSeconds(100, 100, 5)).toBeNull();
  });
});

describe('progress display', () => {
  it('names the node, the steps, the time left and the rate while running', () => {
    expect(progressFacts(running)).toEqual({
      stage: 'Running: KSampler',
      steps: 'Step 7/20',
      nodes: 'Nodes 3/9',
      eta: 'About 1 min 15 s left',
      rate: '1.50 steps/s',
    });
  });
  it('says when a job waits, finished or failed, without stale step figures', () => {
    expect(progressFacts(null).stage).toBe('Waiting in the queue…');
    expect(progressFacts({ ...running, status: 'completed', percent: 100 })).toMatchObject({ stage: 'Finished', steps: null, eta: null, rate: null });
    expect(progressFacts({ ...running, status: 'error' }).stage).toBe('Failed');
  });
});

describe('job errors in words', () => {
  it('rewrites the engine form [Node] message', () => {
    expect(friendlyJobError('[LoadImage] Invalid image file: x.png')).toBe('The step “LoadImage” failed: Invalid image file: x.png');
    expect(friendlyJobError('[KSampler] CUDA out of memory. Tried to allocate 2 GiB')).toMatch(/ran out of GPU memory/);
    expect(friendlyJobError('[CheckpointLoaderSimple] File not found: sd.safetensors')).toMatch(/Check that the required models are downloaded/);
    expect(friendlyJobError(null)).toMatch(/without a message/);
    expect(friendlyJobError('plain text')).toBe('plain text');
  });
});

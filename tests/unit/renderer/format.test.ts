import { describe, expect, it } from 'vitest';
import { friendlyJobError } from '../../../renderer/src/lib/errors.js';
import { downloadProblem, retryWords } from '../../../renderer/src/lib/download-errors.js';
import { dayRange, etaSeconds, formatBytes, formatClock, formatDuration, formatGb, formatPercent, formatSpeed, formatStamp, formatWhen, plural } from '../../../renderer/src/lib/format.js';
import { parseJobFolder } from '../../../renderer/src/lib/job-folder.js';
import { parseServerTime } from '../../../server/contracts/wire-time.js';
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
  it('drops the node count once finished and the clock when Studio is unreachable', () => {
    expect(progressFacts({ ...running, status: 'completed', percent: 100, nodes_done: 8, total_nodes: 10 }).nodes).toBeNull();
    const stale = progressFacts(running, true);
    expect(stale).toMatchObject({ eta: null, rate: null });
    expect(stale.stage).toContain('Studio is unreachable');
  });
  it('says "Starting…" before the first step or node ends, never "About 0 s left"', () => {
    expect(progressFacts({ ...running, step: 0, nodes_done: 0, eta_seconds: 0 }).eta).toBe('Starting…');
    expect(progressFacts({ ...running, step: 3, eta_seconds: 0.4 }).eta).toBeNull();
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

describe('one size unit', () => {
  it('shows catalog sizes (decimal GB) in the same unit as byte counts', () => {
    expect(formatGb(6.94)).toBe(formatBytes(6.94e9));
    expect(formatGb(6.94)).toBe('6.46 GB');
    // An embedding of 30 KB is not "0 MB".
    expect(formatGb(0.00003)).toBe('29.3 KB');
    expect(formatGb(undefined)).toBe('—');
    expect(plural(1, 'image')).toBe('1 image');
    expect(plural(0, 'video')).toBe('0 videos');
  });
});

describe('times in the browser zone', () => {
  it('reads job wall-clock stamps in the server zone and ISO stamps by their offset', () => {
    // 12:16 in Rome in November (UTC+1) is 11:16 UTC; in July (UTC+2) it is 10:16 UTC.
    expect(parseServerTime('2026-11-22T12:16:00', 'Europe/Rome')?.toISOString()).toBe('2026-11-22T11:16:00.000Z');
    expect(parseServerTime('2026-07-01T12:16:00', 'Europe/Rome')?.toISOString()).toBe('2026-07-01T10:16:00.000Z');
    expect(parseServerTime('2026-11-22T12:16:00.000+01:00', 'Asia/Tokyo')?.toISOString()).toBe('2026-11-22T11:16:00.000Z');
    expect(parseServerTime('not a time', 'Europe/Rome')).toBeNull();
    expect(formatStamp(null)).toBe('—');
  });
  it('shows one rule everywhere: the time alone today, the day when not today, the year when not this year', () => {
    const now = new Date(2026, 10, 22, 18, 0, 0);
    const today = formatWhen(new Date(2026, 10, 22, 9, 5, 7), { now });
    expect(today).toBe(new Date(2026, 10, 22, 9, 5, 7).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' }));
    expect(today).not.toMatch(/Nov/);
    expect(formatWhen(new Date(2026, 10, 22, 9, 5, 7), { now, seconds: true })).toMatch(/05.07/);
    const yesterday = formatWhen(new Date(2026, 10, 21, 23, 59), { now });
    expect(yesterday).toMatch(/21/);
    expect(yesterday).toMatch(/Nov/);
    expect(yesterday).not.toMatch(/2026/);
    expect(formatWhen(new Date(2025, 11, 3, 9, 10), { now })).toMatch(/2025/);
    // Events (ISO with an offset) and job stamps (server wall clock) go through the same rule.
    const iso = new Date(2026, 0, 2, 3, 4, 5).toISOString();
    expect(formatClock(iso)).toBe(formatWhen(new Date(iso), { seconds: true }));
    expect(formatStamp('2026-01-02T12:16:00', 'Europe/Rome')).toBe(formatWhen(new Date('2026-01-02T11:16:00Z')));
    expect(formatStamp('2026-01-02 12:16', 'Europe/Rome')).toBe(formatWhen(new Date('2026-01-02T11:16:00Z')));
  });
  it('turns a browser day into the history route\'s from/to instants', () => {
    expect(dayRange('2026-11-22')).toEqual({ from: new Date(2026, 10, 22).toISOString(), to: new Date(2026, 10, 23).toISOString() });
    expect(dayRange('')).toBeNull();
  });
  it('reads a job folder name as workflow and time', () => {
    expect(parseJobFolder('image-filter_20261122-121600_a1b2c3')).toEqual({ workflowId: 'image-filter', stamp: '2026-11-22T12:16:00' });
    expect(parseJobFolder('loose-folder')).toBeNull();
  });
});

describe('download failures in words', () => {
  it('says what happened and what to do instead of the network library text', () => {
    const dns = downloadProblem('Network error: getaddrinfo ENOTFOUND huggingface.co');
    expect(dns.what).toMatch(/could not reach the download server/);
    expect(dns.todo).toMatch(/proxy/);
    expect(downloadProblem('Access to this gated model has not been granted (403): accept the model\'s license').what).toMatch(/licence/);
    expect(downloadProblem('HTTP 401 Unauthorized').todo).toMatch(/token/);
    expect(downloadProblem('File not found (404)').what).toMatch(/no longer at its address/);
    expect(downloadProblem('ENOSPC: no space left on device').what).toBe('The disk is full.');
    expect(retryWords({ attempt: 2, of: 6 })).toBe('retrying 2 of 6');
    expect(retryWords({ attempt: 1, of: 5, reason: 'HTTP 503 Service Unavailable' })).toBe('retrying 1 of 5 · last attempt: HTTP 503 Service Unavailable');
    expect(retryWords(undefined)).toBeNull();
  });
});

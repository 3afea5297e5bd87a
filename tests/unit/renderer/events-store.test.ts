import { afterEach, describe, expect, it } from 'vitest';
import type { StudioEvent } from '../../../renderer/src/api/types.js';
import { matchesEventFilter, typeGroups, useEventsStore } from '../../../renderer/src/stores/events.store.js';
import { settledFiles, totalSpeed } from '../../../renderer/src/stores/catalog.store.js';
import { groupByCategory } from '../../../renderer/src/stores/workflows.store.js';
import type { WorkflowEntry } from '../../../renderer/src/api/types.js';
import { harness, type Harness } from './harness.js';

function event(id: string, type: string, severity: StudioEvent['severity']): StudioEvent {
  return { id, type, severity, timestamp: '2026-11-22T10:00:00+01:00', message: `${type} happened`, data: {} };
}

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

describe('event filters', () => {
  it('passes everything with empty lists and narrows by type and severity', () => {
    const e = event('evt_1', 'job.failed', 'error');
    expect(matchesEventFilter(e, { types: [], severities: [] })).toBe(true);
    expect(matchesEventFilter(e, { types: ['job.failed'], severities: ['error'] })).toBe(true);
    expect(matchesEventFilter(e, { types: ['job.completed'], severities: [] })).toBe(false);
    expect(matchesEventFilter(e, { types: [], severities: ['info', 'success'] })).toBe(false);
  });

  it('groups types by their first segment for the menu', () => {
    expect(typeGroups(['job.failed', 'engine.state', 'job.completed', 'job.failed'])).toEqual([
      { group: 'engine', types: ['engine.state'] },
      { group: 'job', types: ['job.completed', 'job.failed'] },
    ]);
  });

  it('sends the filter to the server and appends live events that pass it', async () => {
    h = await harness({ 'GET /api/admin/events': () => [event('evt_1', 'job.failed', 'error')] });
    const events = useEventsStore();
    await events.setFilter({ severities: ['error'] });
    expect(h.requests.at(-1)).toBe('GET /api/admin/events?limit=200&severity=error');
    h.socket().send('event', event('evt_2', 'job.completed', 'success'));
    h.socket().send('event', event('evt_3', 'engine.crashed', 'error'));
    h.socket().send('event', event('evt_3', 'engine.crashed', 'error'));
    expect(events.events.map((e) => e.id)).toEqual(['evt_1', 'evt_3']);
    expect(events.newestFirst[0]?.id).toBe('evt_3');
    expect(events.knownTypes).toEqual(['engine.crashed', 'job.completed', 'job.failed']);
  });
});

describe('download stream bookkeeping', () => {
  const base = { bytes_downloaded: 0, bytes_total: 10, speed: 0, percent: 0 };
  it('notices downloads that ended (done, error, or gone from the stream)', () => {
    const before = { a: { ...base, status: 'downloading' as const }, b: { ...base, status: 'queued' as const }, c: { ...base, status: 'downloading' as const } };
    const after = { a: { ...base, status: 'done' as const }, b: { ...base, status: 'downloading' as const } };
    expect(settledFiles(before, after).sort()).toEqual(['a', 'c']);
    expect(settledFiles(after, after)).toEqual([]);
  });
  it('adds up the speed of running downloads', () => {
    expect(totalSpeed({ a: { ...base, status: 'downloading', speed: 5 }, b: { ...base, status: 'queued', speed: 9 }, c: { ...base, status: 'downloading', speed: 2 } })).toBe(7);
  });
});

describe('workflow groups', () => {
  it('groups by category, sorted, uncategorised last', () => {
    const wf = (id: string, category: string) => ({ id, name: id, category }) as WorkflowEntry;
    const groups = groupByCategory([wf('b', 'video'), wf('z', ''), wf('a', 'image'), wf('c', 'image')]);
    expect(groups.map((g) => [g.category, g.workflows.map((w) => w.id)])).toEqual([
      ['image', ['a', 'c']],
      ['video', ['b']],
      ['other', ['z']],
    ]);
  });
});

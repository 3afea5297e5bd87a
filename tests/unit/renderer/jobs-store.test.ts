import { afterEach, describe, expect, it } from 'vitest';
import type { JobRecord, ProgressObject } from '../../../renderer/src/api/types.js';
import { matchesHistoryFilter, useJobsStore } from '../../../renderer/src/stores/jobs.store.js';
import { harness, type Harness } from './harness.js';

function job(id: string, patch: Partial<JobRecord> = {}): JobRecord {
  return {
    prompt_id: id,
    workflow_id: 'image-filter',
    workflow_name: 'Image noise and blur',
    output_dir: `image-filter_${id}`,
    status: 'running',
    queued_at: '2026-11-22T10:00:00',
    started_at: null,
    finished_at: null,
    duration: null,
    input_image: null,
    params: {},
    seeds: { seed: 5 },
    output: null,
    error: null,
    ...patch,
  };
}

function progress(percent: number, rate: number | null = 2): ProgressObject {
  return {
    status: 'running',
    node_title: 'Noise',
    node_type: 'ImageAddNoise',
    step: 3,
    total_steps: 10,
    nodes_done: 1,
    total_nodes: 4,
    effective_total: 3,
    cached_count: 0,
    percent,
    eta_seconds: 4,
    step_rate: rate,
    node_outputs: {},
  };
}

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
}

describe('jobs store', () => {
  it('follows a job from the socket: queued, progress with a rate history, completed at 100 %', async () => {
    h = await harness({ 'GET /api/admin/queue': () => [] });
    const jobs = useJobsStore();
    h.socket().send('job.queued', job('a', { status: 'queued' }));
    expect(jobs.tracked('a').status).toBe('queued');
    h.socket().send('job.progress', { prompt_id: 'a', progress: progress(30, 1.5) });
    h.socket().send('job.progress', { prompt_id: 'a', progress: progress(60, 2.5) });
    expect(jobs.tracked('a').progress?.percent).toBe(60);
    expect(jobs.tracked('a').rates).toEqual([1.5, 2.5]);
    h.socket().send('job.completed', job('a', { status: 'completed', duration: 2 }));
    const done = jobs.tracked('a');
    expect(done.status).toBe('completed');
    expect(done.progress?.percent).toBe(100);
    expect(jobs.activeList).toEqual([]);
    expect(jobs.history.map((j) => j.prompt_id)).toEqual(['a']);
  });

  it('after a reconnect finds out how jobs that left the queue meanwhile ended', async () => {
    let queue: JobRecord[] = [job('a'), job('b')];
    h = await harness({
      'GET /api/admin/queue': () => queue,
      'GET /api/run/status/a': () => ({ status: 'completed', outputs: { image: { filename: 'x.png', subfolder: '', type: 'output' } } }),
      'GET /api/run/status/b': () => ({ status: 'error', prompt_id: 'b', error: '[LoadImage] Invalid image file' }),
    });
    const jobs = useJobsStore();
    await jobs.refreshQueue();
    expect(jobs.activeList.map((j) => j.prompt_id)).toEqual(['a', 'b']);

    // The socket drops; both jobs end while nobody listens.
    h.socket().drop();
    queue = [];
    h.reconnect();
    h.socket().open();
    await jobs.refreshQueue();
    expect(jobs.tracked('a').status).toBe('completed');
    expect(jobs.tracked('a').progress?.percent).toBe(100);
    expect(jobs.tracked('b')).toMatchObject({ status: 'error', error: '[LoadImage] Invalid image file' });
    expect(h.requests).toContain('GET /api/run/status/a');
  });

  it('forgets deleted jobs and pages the history with the filter in the query', async () => {
    const rows = Array.from({ length: 21 }, (_, i) => job(`h${i}`, { status: 'completed' }));
    h = await harness({ 'GET /api/admin/history': (url) => rows.slice(Number(url.searchParams.get('offset')), Number(url.searchParams.get('offset')) + Number(url.searchParams.get('limit'))) });
    const jobs = useJobsStore();
    await jobs.setFilter({ status: 'completed', workflow_id: 'image-filter' });
    expect(jobs.history).toHaveLength(20);
    expect(jobs.hasMore).toBe(true);
    expect(h.requests.at(-1)).toBe('GET /api/admin/history?limit=21&offset=0&status=completed&workflow_id=image-filter');
    await jobs.loadHistory(1);
    expect(jobs.history.map((j) => j.prompt_id)).toEqual(['h20']);
    expect(jobs.hasMore).toBe(false);
    h.socket().send('job.deleted', { prompt_ids: ['h20'] });
    expect(jobs.history).toEqual([]);
  });

  it('adds finished jobs to the first page only when they pass the filter', () => {
    expect(matchesHistoryFilter(job('x', { status: 'error' }), { status: 'completed' })).toBe(false);
    expect(matchesHistoryFilter(job('x', { status: 'completed' }), { workflow_id: 'other' })).toBe(false);
    expect(matchesHistoryFilter(job('x', { status: 'completed' }), {})).toBe(true);
    expect(matchesHistoryFilter(job('x', { status: 'running' }), {})).toBe(false);
  });

  it('keeps a live finished job out of a page filtered by star, day or words it does not match', () => {
    const fox = job('x', { status: 'completed', params: { positive: 'A red fox', steps: 3 } });
    expect(matchesHistoryFilter(fox, { starred: true })).toBe(false);
    expect(matchesHistoryFilter(fox, { q: 'RED fox' })).toBe(true);
    expect(matchesHistoryFilter(fox, { q: 'owl' })).toBe(false);
    expect(matchesHistoryFilter(fox, { q: 'noise' })).toBe(true); // the workflow name
    expect(matchesHistoryFilter(fox, { from: '2001-01-01T00:00:00Z', to: '2001-01-02T00:00:00Z' })).toBe(false);
  });

  it('sends search, day and star filters to the server; a star updates the row; neighbours page on', async () => {
    const rows = Array.from({ length: 21 }, (_, i) => job(`h${i}`, { status: 'completed' }));
    h = await harness({
      'GET /api/admin/history': (url) => rows.slice(Number(url.searchParams.get('offset')), Number(url.searchParams.get('offset')) + Number(url.searchParams.get('limit'))),
      'POST /api/admin/history/h1/star': (_url, body) => ({ ...rows[1]!, ...((JSON.parse(body) as { starred: boolean }).starred ? { starred: true } : {}) }),
    });
    const jobs = useJobsStore();
    await jobs.setFilter({ q: 'red fox', from: '2026-11-21T23:00:00.000Z', to: '2026-11-22T23:00:00.000Z', starred: true });
    expect(h.requests.at(-1)).toBe('GET /api/admin/history?limit=21&offset=0&q=red+fox&from=2026-11-21T23%3A00%3A00.000Z&to=2026-11-22T23%3A00%3A00.000Z&starred=true');
    await jobs.setFilter({});
    expect((await jobs.star('h1', true)).starred).toBe(true);
    expect(jobs.history[1]!.starred).toBe(true);
    expect(await jobs.neighbour('h1', 'newer')).toBe('h0');
    expect(await jobs.neighbour('h0', 'newer')).toBeNull();
    // h19 ends the first page: the older one is the first of the next page, which is loaded.
    expect(await jobs.neighbour('h19', 'older')).toBe('h20');
    expect(jobs.page).toBe(1);
    expect(await jobs.neighbour('h20', 'newer')).toBe('h19');
    expect(jobs.page).toBe(0);
  });

  it('asks for the queue when progress arrives for a job it has not seen', async () => {
    h = await harness({ 'GET /api/admin/queue': () => [job('late')] });
    const jobs = useJobsStore();
    await jobs.refreshQueue();
    h.socket().send('job.progress', { prompt_id: 'new', progress: progress(10) });
    await until(() => h!.requests.filter((r) => r === 'GET /api/admin/queue').length === 2);
    expect(jobs.tracked('new').progress?.percent).toBe(10);
  });
});

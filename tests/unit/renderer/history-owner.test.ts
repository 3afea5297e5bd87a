/**
 * The history's owner filter (issue 43): sent to the server as `owner`, and a job arriving live
 * joins a page filtered by owner only when it is that person's.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../renderer/src/api/types.js';
import { matchesHistoryFilter, useJobsStore } from '../../../renderer/src/stores/jobs.store.js';
import { harness, type Harness } from './harness.js';

function job(id: string, patch: Partial<JobRecord> = {}): JobRecord {
  return {
    prompt_id: id, workflow_id: 'image-filter', workflow_name: 'Image noise and blur', output_dir: `image-filter_${id}`, status: 'completed',
    queued_at: '2026-11-22T10:00:00', started_at: null, finished_at: null, duration: null, input_image: null, params: {}, seeds: {}, output: null, error: null,
    ...patch,
  };
}

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

describe('the history owner filter', () => {
  it("lets a live job into a page of one person's jobs only when it is theirs", () => {
    expect(matchesHistoryFilter(job('x', { owner_id: 'ann' }), { owner: 'ann' })).toBe(true);
    expect(matchesHistoryFilter(job('x', { owner_id: 'bob' }), { owner: 'ann' })).toBe(false);
    expect(matchesHistoryFilter(job('x'), { owner: 'owner' })).toBe(true);
    expect(matchesHistoryFilter(job('x', { owner_id: 'bob' }), { owner: 'everyone' })).toBe(true);
    expect(matchesHistoryFilter(job('x'), { owner: 'mine' })).toBe(false);
  });

  it('sends the owner to the server', async () => {
    h = await harness({ 'GET /api/admin/history': () => [job('a', { owner_id: 'ann' }), job('b')] });
    const jobs = useJobsStore();
    await jobs.setFilter({ owner: 'mine' });
    expect(h.requests.at(-1)).toBe('GET /api/admin/history?limit=21&offset=0&owner=mine');
    expect(jobs.history.map((j) => j.owner_id ?? 'owner')).toEqual(['ann', 'owner']);
  });
});

/**
 * Failover's limit: a job whose engine goes offline goes back to the front of the queue (a running
 * one back to `queued`, event `job.requeued` naming the engine) at most twice; the third time it
 * ends `error` with the reason. With a single engine nothing moves (its jobs wait for it). Driven
 * through the queue's own failover call on a real Studio and database, with an engine added by
 * URL that nothing answers on, so no engine ever takes the job on its own.
 *
 * Order matters (one Studio for the file; found with --sequence.shuffle): the single-engine test expects the pool as beforeAll made it, so it runs before the requeue
 * test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueueStore } from '../../../server/jobs/queue/queue.store.js';
import { jobRecord } from '../../helpers/runner.js';
import { freePort } from '../../helpers/ports.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let t: TestStudio;
let store: QueueStore;

beforeAll(async () => {
  t = await startTestStudio();
  store = new QueueStore(t.studio.db);
});
afterAll(async () => {
  await t.stop();
});

/** A job recorded and waiting in Studio's queue, then handed (as the queue would) to `engineId`. */
async function handedJob(id: string, engineId: string, running: boolean): Promise<void> {
  await t.studio.lifecycle.submit(jobRecord({ prompt_id: id, status: 'queued', workflow_id: 'image-filter', workflow_name: 'Image filter' }), async () => {
    t.studio.jobsModule.queue.enqueue(id, { submitter: 'test', graph: {}, extraData: {} });
  });
  store.hand(id, engineId);
  if (running) expect(t.studio.lifecycle.move(id, { to: 'running' }).ok).toBe(true);
}

describe('failover', () => {
  it('does nothing with a single engine', async () => {
    await handedJob('solo', 'local', true);
    t.studio.jobsModule.queue.failover('local');
    expect(t.studio.jobs.get('solo')?.status).toBe('running');
    expect(store.get('solo')?.engine_id).toBe('local');
    t.studio.lifecycle.move('solo', { to: 'cancelled' });
  });

  it('requeues a job twice, at the front, then fails it', async () => {
    const res = await t.api('/api/admin/engines', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'Gone', url: `http://127.0.0.1:${await freePort()}` }) });
    const { id: gone } = (await res.json()) as { id: string };
    await handedJob('ahead', 'local', false); // waits in front of nothing: a job already in line
    store.hand('ahead', null);
    await handedJob('moved', gone, true);
    for (const round of [1, 2]) {
      t.studio.jobsModule.queue.failover(gone);
      const job = t.studio.jobs.get('moved')!;
      expect(job).toMatchObject({ status: 'queued', started_at: null });
      expect(store.get('moved')).toMatchObject({ engine_id: null, failovers: round });
      expect(store.waiting()[0]?.prompt_id).toBe('moved');
      store.hand('moved', gone);
      if (round === 1) expect(t.studio.lifecycle.move('moved', { to: 'running' }).ok).toBe(true);
    }
    t.studio.jobsModule.queue.failover(gone);
    const failed = t.studio.jobs.get('moved')!;
    expect(failed.status).toBe('error');
    expect(failed.error).toMatch(/went offline while it had this job/);
    expect(store.get('moved')).toBeNull();
    const events = (await (await t.api('/api/admin/events?types=job.requeued&limit=10')).json()) as Array<{ data: Record<string, unknown> }>;
    expect(events.map((e) => e.data).filter((d) => d.prompt_id === 'moved')).toEqual(
      expect.arrayContaining([expect.objectContaining({ engine_id: gone, failovers: 1, user_id: 'owner' }), expect.objectContaining({ engine_id: gone, failovers: 2, user_id: 'owner' })]),
    );
  });

  it('says whose a prefetched job is when it goes back (it was queued already: failover says it, not the lifecycle)', async () => {
    const res = await t.api('/api/admin/engines', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'Gone too', url: `http://127.0.0.1:${await freePort()}` }) });
    const { id: gone } = (await res.json()) as { id: string };
    await handedJob('prefetched', gone, false);
    t.studio.jobsModule.queue.failover(gone);
    expect(t.studio.jobs.get('prefetched')?.status).toBe('queued');
    const events = (await (await t.api('/api/admin/events?types=job.requeued&limit=10')).json()) as Array<{ data: Record<string, unknown> }>;
    expect(events.map((e) => e.data).find((d) => d.prompt_id === 'prefetched')).toMatchObject({ engine_id: gone, failovers: 1, user_id: 'owner', workflow_id: 'image-filter' });
    t.studio.lifecycle.move('prefetched', { to: 'cancelled' });
  });
});

/**
 * The job lifecycle is the one writer of job status: every move of the transition table, allowed
 * or refused, is tried on a real Studio, and the stored record, the event log and the WebSocket
 * message must agree (an allowed move shows in all three, a refused one in none).
 */
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobMove } from '../../../server/jobs/job-lifecycle.js';
import type { JobRecord, JobStatus } from '../../../server/contracts/jobs.contract.js';
import { JOB_STATUSES, JOB_TRANSITIONS, stallMessage } from '../../../server/jobs/job-transitions.js';
import { jobRecord } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { connectStudioWs, until, type StudioWsClient } from '../../helpers/studio-ws.js';

let t: TestStudio;
let ws: StudioWsClient;
beforeAll(async () => {
  t = await startTestStudio();
  ws = await connectStudioWs(t.url, t.apiKey);
});
afterAll(async () => {
  await ws.close();
  await t.stop();
});

interface LoggedEvent {
  type: string;
  severity: string;
  message: string;
  data: Record<string, unknown>;
}

async function eventsOf(promptId: string): Promise<LoggedEvent[]> {
  const events = (await (await t.api('/api/admin/events?types=job.*&limit=1000')).json()) as LoggedEvent[];
  return events.filter((e) => e.data.prompt_id === promptId);
}

function framesOf(promptId: string) {
  return ws.frames.filter((f) => f.data.prompt_id === promptId || (f.data.prompt_ids as string[] | undefined)?.includes(promptId));
}

/** Every frame sent so far has arrived: a fresh job's `job.queued` frame came after them. */
async function settle(): Promise<void> {
  const marker = await queuedJob();
  await until(() => ws.ofType('job.queued').some((f) => f.data.prompt_id === marker.prompt_id), 'the marker frame');
}

async function queuedJob(): Promise<JobRecord> {
  const id = `lc-${crypto.randomUUID()}`;
  return t.studio.lifecycle.submit(
    jobRecord({ prompt_id: id, status: 'queued', workflow_id: 'image-filter', workflow_name: 'Image filter', output_dir: null, queued_at: '2026-11-25T10:00:00' }),
    async () => undefined,
  );
}

const EXAMPLE_MOVES: Record<Exclude<JobStatus, 'queued'>, JobMove> = {
  running: { to: 'running' },
  completed: { to: 'completed', output: { filename: 'out.png', subfolder: 'x/final', type: 'output' } },
  error: { to: 'error', error: '[KSampler] out of memory' },
  stalled: { to: 'stalled', reason: { cause: 'lost' } },
  cancelled: { to: 'cancelled' },
};

/** A job in `status`, reached through the lifecycle from `queued`. */
async function jobIn(status: JobStatus): Promise<JobRecord> {
  const job = await queuedJob();
  if (status === 'queued') return job;
  const result = t.studio.lifecycle.move(job.prompt_id, EXAMPLE_MOVES[status]);
  expect(result.ok).toBe(true);
  return result.job!;
}

const EVENT_OF: Record<JobStatus, string> = { queued: 'job.queued', running: 'job.started', completed: 'job.completed', error: 'job.failed', stalled: 'job.stalled', cancelled: 'job.cancelled' };
const SEVERITY_OF: Record<JobStatus, string> = { queued: 'info', running: 'info', completed: 'success', error: 'error', stalled: 'warning', cancelled: 'info' };

describe('the job lifecycle', () => {
  it('announces a new job: record, job.queued event and WS message agree', async () => {
    const job = await queuedJob();
    await until(() => ws.ofType('job.queued').find((f) => f.data.prompt_id === job.prompt_id), 'job.queued frame');
    expect(t.studio.jobs.get(job.prompt_id)).toEqual(job);
    expect(framesOf(job.prompt_id)).toEqual([{ type: 'job.queued', data: job }]);
    expect(await eventsOf(job.prompt_id)).toMatchObject([{ type: 'job.queued', severity: 'info', message: 'Job queued: Image filter' }]);
  });

  it('leaves nothing behind when the engine refuses the submit', async () => {
    const id = `lc-${crypto.randomUUID()}`;
    await expect(t.studio.lifecycle.submit(jobRecord({ prompt_id: id, status: 'queued' }), () => Promise.reject(new Error('engine said no')))).rejects.toThrow('engine said no');
    await settle();
    expect(t.studio.jobs.get(id)).toBeNull();
    expect(framesOf(id)).toEqual([]);
    expect(await eventsOf(id)).toEqual([]);
  });

  for (const from of JOB_STATUSES) {
    for (const to of JOB_STATUSES) {
      const allowed = JOB_TRANSITIONS[from].includes(to);
      it(`${allowed ? 'moves' : 'refuses'} ${from} → ${to}`, async () => {
        const job = await jobIn(from);
        await settle();
        const framesBefore = framesOf(job.prompt_id).length;
        const eventsBefore = (await eventsOf(job.prompt_id)).length;
        // Back to `queued` only from running: its engine went offline (failover).
        const move: JobMove = to === 'queued' ? { to: 'queued', via: { engine_id: 'gpu1', failovers: 1 } } : EXAMPLE_MOVES[to];
        const result = t.studio.lifecycle.move(job.prompt_id, move);
        await settle();
        const stored = t.studio.jobs.get(job.prompt_id)!;
        const frames = framesOf(job.prompt_id).slice(framesBefore);
        const events = (await eventsOf(job.prompt_id)).slice(eventsBefore);
        if (!allowed) {
          expect(result.ok).toBe(false);
          expect(stored).toEqual(job);
          expect(frames).toEqual([]);
          expect(events).toEqual([]);
          return;
        }
        expect(result).toMatchObject({ ok: true, from, job: stored });
        expect(stored.status).toBe(to);
        const type = to === 'queued' ? 'job.requeued' : EVENT_OF[to];
        expect(frames).toEqual([{ type, data: stored }]);
        expect(events).toHaveLength(1);
        expect(events[0]).toMatchObject({ type, severity: to === 'queued' ? 'warning' : SEVERITY_OF[to], data: { prompt_id: job.prompt_id, workflow_id: 'image-filter' } });
        if (to === 'queued') expect(stored.started_at).toBeNull();
        if (to === 'queued') expect(events[0]!.data).toMatchObject({ engine_id: 'gpu1', failovers: 1 });
        if (to === 'running') expect(stored.started_at).not.toBeNull();
        if (to === 'completed') {
          expect(stored).toMatchObject({ output: { filename: 'out.png' }, error: null, finished_at: expect.any(String) });
          expect(events[0]!.message).toBe(`Job completed in ${stored.duration ?? 0}s`);
          expect(events[0]!.data.duration).toBe(stored.duration ?? 0);
          // Never seen running on the engine: no run time (its wait in the queue is not one).
          if (from === 'queued') expect(stored).toMatchObject({ started_at: null, duration: null });
        }
        if (to === 'error') {
          expect(stored).toMatchObject({ error: '[KSampler] out of memory', finished_at: expect.any(String) });
          expect(events[0]).toMatchObject({ message: 'Job failed: [KSampler] out of memory', data: { error: stored.error } });
        }
        if (to === 'stalled') {
          expect(stored).toMatchObject({ error: stallMessage({ cause: 'lost' }), finished_at: expect.any(String) });
          expect(events[0]).toMatchObject({ message: `Job stalled: ${stored.error}`, data: { cause: 'lost', error: stored.error } });
        }
      });
    }
  }

  it('removes records of any status: one job.deleted event each, one WS message for all', async () => {
    const jobs = await Promise.all(JOB_STATUSES.map((s) => jobIn(s)));
    const ids = jobs.map((j) => j.prompt_id);
    const removed = t.studio.lifecycle.remove([...ids, 'lc-unknown']);
    expect(removed.map((j) => j.prompt_id)).toEqual(ids);
    await settle();
    for (const id of ids) {
      expect(t.studio.jobs.get(id)).toBeNull();
      expect((await eventsOf(id)).filter((e) => e.type === 'job.deleted')).toHaveLength(1);
    }
    expect(ws.ofType('job.deleted').filter((f) => (f.data.prompt_ids as string[]).includes(ids[0]!))).toEqual([{ type: 'job.deleted', data: { prompt_ids: ids } }]);
  });

  it('tells the LLM policy of every change, stalls included (it counts active jobs)', async () => {
    const seen: number[] = [];
    const off = t.studio.lifecycle.subscribe(() => seen.push(t.studio.lifecycle.activeCount()));
    const before = t.studio.lifecycle.activeCount();
    const job = await queuedJob();
    t.studio.lifecycle.move(job.prompt_id, { to: 'running' });
    t.studio.lifecycle.move(job.prompt_id, { to: 'stalled', reason: { cause: 'lost' } });
    off();
    expect(seen).toEqual([before + 1, before + 1, before]);
  });
});

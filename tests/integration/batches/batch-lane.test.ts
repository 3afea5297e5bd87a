/**
 * The batch lane on a real queue (issue 45): a batch whose window opens in two minutes does not
 * start before it (a test clock: an interactive job queued after it runs, the batch's jobs stay
 * waiting) and runs once the clock reaches it; an interactive job submitted mid-batch starts
 * before the next batch job; pause holds the batch's waiting cells, resume lets them go, cancel
 * ends the rest. Events batch.created/paused/resumed/completed/cancelled. A member's batch counts
 * against their quotas and allow-list; a preset's batch runs over the preset's values; a retry of a
 * cell that did not complete takes its place in the batch and its lane.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute, plantModels, SHIPPED_MODELS, waitForJob } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { connectStudioWs, until } from '../../helpers/studio-ws.js';
import { batchDetail, createBatch } from '../../helpers/batches.js';
import { addPerson, as, json, signIn } from '../../helpers/people.js';
import type { BatchCreated } from '../../../server/contracts/batches.contract.js';

let t: TestStudio;
// 2026-01-15 00:58 on the box's own clock (the window's zone).
let now = new Date(2026, 0, 15, 0, 58).getTime();
const WORKFLOW = 'txt2img-sdxl';

const make = async (body: Record<string, unknown>): Promise<BatchCreated> => {
  const res = await createBatch(t, { workflow_id: WORKFLOW, params: { steps: 2 }, ...body });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as BatchCreated;
};
const post = (p: string) => t.api(p, { method: 'POST' });
const batchEvents = async () => ((await (await t.api('/api/admin/events?limit=1000&types=batch.*')).json()) as Array<{ type: string; data: { batch_id?: string } }>);

beforeAll(async () => {
  t = await startTestStudio({ startEngine: true, env: { STANDIN_STEP_MS: '40' }, batchClock: () => now });
  plantModels(t.dir, SHIPPED_MODELS);
  await until(async () => (await t.studio.engineModule.client.queue().catch(() => null)) !== null, 'the stand-in', 30_000);
}, 60_000);

afterAll(async () => {
  await t?.stop();
});

describe('the batch lane', () => {
  it('waits for its window: nothing starts before it opens, an interactive job still runs', async () => {
    const batch = await make({ kind: 'list', rows: [2, 3, 4, 5, 6, 7, 8].map((steps) => ({ steps })), window: { from: '01:00', to: '07:00' } });
    // Queued a few at a time, waiting in the cells' order all the same.
    const line = (await (await t.api('/api/admin/queue')).json()) as Array<{ prompt_id: string; position: number | null }>;
    expect(line.filter((j) => batch.job_ids.includes(j.prompt_id)).map((j) => j.prompt_id)).toEqual(batch.job_ids);
    expect(batch.status).toBe('waiting');
    // Queued after the batch, it runs: the queue went round and left the batch's jobs waiting.
    const single = await execute(t.api, WORKFLOW, { params: { steps: 2 } });
    await waitForJob(t.api, single.prompt_id, ['completed']);
    t.studio.jobsModule.queue.schedule();
    await waitForJob(t.api, single.prompt_id, ['completed']);
    const before = await batchDetail(t, batch.id);
    expect(before.status).toBe('waiting');
    expect(before.cells.every((c) => c.status === 'queued')).toBe(true);
    expect(before.cells.every((c) => c.engine_id === null)).toBe(true);
    now += 2 * 60_000;
    const after = await until(async () => {
      const d = await batchDetail(t, batch.id);
      return d.status === 'completed' ? d : undefined;
    }, 'the batch ran in its window', 20_000);
    expect(after.done).toBe(7);
    expect((await batchEvents()).filter((e) => e.data.batch_id === batch.id).map((e) => e.type)).toEqual(['batch.created', 'batch.completed']);
  }, 40_000);

  it('lets an interactive job submitted mid-batch start before the next batch job', async () => {
    const started: string[] = [];
    const off = t.studio.jobsModule.lifecycle.subscribe((change) => {
      if (change.type === 'job.started') started.push(change.job.prompt_id);
    });
    try {
      const batch = await make({ kind: 'list', rows: Array.from({ length: 5 }, () => ({ steps: 6 })) });
      await until(() => started.includes(batch.job_ids[0]!), 'the first batch job started');
      const single = await execute(t.api, WORKFLOW, { params: { steps: 2 } });
      await until(async () => (await batchDetail(t, batch.id)).status === 'completed', 'the batch completed', 30_000);
      await waitForJob(t.api, single.prompt_id, ['completed']);
      // Right after the batch job that was running when it came (no batch job was prefetched before it).
      expect(started.indexOf(single.prompt_id)).toBe(started.indexOf(batch.job_ids[0]!) + 1);
    } finally {
      off();
    }
  }, 40_000);

  it('pauses, resumes and cancels a batch, with its events', async () => {
    const batch = await make({ kind: 'list', rows: Array.from({ length: 4 }, () => ({ steps: 4 })) });
    expect((await (await post(`/api/admin/batches/${batch.id}/pause`)).json()) as { status: string }).toMatchObject({ status: 'paused' });
    expect((await post(`/api/admin/batches/${batch.id}/pause`)).status).toBe(409);
    // The jobs on the engine when it was paused finish; nothing more is handed over.
    await until(async () => (await batchDetail(t, batch.id)).cells.every((c) => c.status !== 'running'), 'the handed cells finished', 20_000);
    const paused = await batchDetail(t, batch.id);
    const waiting = paused.cells.filter((c) => c.status === 'queued');
    expect(waiting.length).toBeGreaterThan(0);
    expect((await post(`/api/admin/batches/${batch.id}/resume`)).status).toBe(200);
    await until(async () => (await batchDetail(t, batch.id)).done > paused.done, 'a cell ran after resume', 20_000);
    const cancelled = (await (await post(`/api/admin/batches/${batch.id}/cancel`)).json()) as { status: string };
    expect(cancelled.status).toBe('cancelled');
    const detail = await batchDetail(t, batch.id);
    expect(detail.cells.every((c) => c.status === 'completed' || c.status === 'cancelled')).toBe(true);
    const list = await batchEvents();
    const mine = list.filter((e) => e.data?.batch_id === batch.id).map((e) => e.type);
    expect(new Set(mine)).toEqual(new Set(['batch.created', 'batch.paused', 'batch.resumed', 'batch.cancelled']));
  }, 60_000);

  it("counts a member's batch jobs against their quotas and allow-list, refusing the batch whole", async () => {
    const member = await addPerson(t, 'quinn', 'member', { quotas: { waiting: 2 }, allow: { workflows: [WORKFLOW] } });
    const cookie = await signIn(t, member);
    const post = (body: Record<string, unknown>) => as(t, { cookie }, '/api/admin/batches', json('POST', { params: { steps: 2 }, ...body }));
    await t.api('/api/admin/queue/pause', { method: 'POST' });
    try {
      const over = await post({ workflow_id: WORKFLOW, kind: 'list', rows: [{ steps: 2 }, { steps: 3 }, { steps: 4 }] });
      expect(over.status).toBe(429);
      // Cells are queued three at a time: which one meets the full quota first depends on timing.
      expect(((await over.json()) as { detail: string }).detail).toMatch(/^row [123]: .*2 jobs waiting at once reached/);
      const other = await post({ workflow_id: 'txt2img-sd15', kind: 'list', rows: [{ steps: 2 }] });
      expect(other.status).toBe(403);
      expect(await (await as(t, { cookie }, '/api/admin/queue')).json()).toEqual([]);
      expect(await (await as(t, { cookie }, '/api/admin/batches')).json()).toEqual([]);
    } finally {
      await t.api('/api/admin/queue/resume', { method: 'POST' });
    }
  });

  it("runs a preset's batch over its stored values, each job recording the preset", async () => {
    const preset = { id: 'fox-sweep', name: 'Fox', workflow: { workflow_id: WORKFLOW, params: { positive: 'a fox', steps: 2, cfg: 6 } } };
    expect((await t.api('/api/admin/presets', json('POST', preset))).status).toBe(200);
    const ws = await connectStudioWs(t.url, t.apiKey);
    const res = await createBatch(t, { preset_id: 'fox-sweep', kind: 'grid', axes: [{ input: 'positive', values: { replace: 'fox', with: ['fox', 'owl'] } }] });
    expect(res.status).toBe(200);
    const batch = (await res.json()) as BatchCreated;
    const done = await until(async () => {
      const d = await batchDetail(t, batch.id);
      return d.status === 'completed' ? d : undefined;
    }, 'the preset batch completed', 20_000);
    expect(done.workflow_id).toBe(WORKFLOW);
    // Every cell's start and end went out on the WebSocket, and the batch's end.
    await until(() => ws.ofType('batch.state').some((f) => f.data.id === batch.id && f.data.status === 'completed'), 'batch.state completed on the socket');
    const cellFrames = ws.ofType('batch.cell').filter((f) => f.data.batch_id === batch.id);
    for (const [index, id] of batch.job_ids.entries()) expect(cellFrames.filter((f) => f.data.prompt_id === id && f.data.index === index).map((f) => f.data.status)).toEqual(['running', 'completed']);
    await ws.close();
    const jobs = await Promise.all(batch.job_ids.map((id) => waitForJob(t.api, id, ['completed'])));
    expect(jobs.map((j) => [j.preset_id, (j.params as { positive: string }).positive, (j.params as { cfg: number }).cfg])).toEqual([
      ['fox-sweep', 'a fox', 6],
      ['fox-sweep', 'a owl', 6],
    ]);
  });

  it("lets a retry of a cell that did not complete take the cell's place, in the batch's lane", async () => {
    const batch = await make({ kind: 'list', rows: [{ steps: 20 }, { steps: 3 }, { steps: 4 }] });
    expect((await post(`/api/admin/batches/${batch.id}/pause`)).status).toBe(200);
    await until(async () => (await batchDetail(t, batch.id)).cells.every((c) => c.status !== 'running' && (c.status !== 'queued' || c.engine_id === null)), 'nothing of the batch on the engine', 20_000);
    const waiting = (await batchDetail(t, batch.id)).cells.find((c) => c.status === 'queued')!;
    expect((await t.api('/api/admin/queue/cancel', json('POST', { prompt_id: waiting.prompt_id }))).status).toBe(200);
    const retry = (await (await t.api('/api/admin/history/retry', json('POST', { prompt_id: waiting.prompt_id }))).json()) as { prompt_id: string };
    const cell = (await batchDetail(t, batch.id)).cells[waiting.index]!;
    expect(cell.prompt_id).toBe(retry.prompt_id);
    // Paused, the retry waits like the batch's other cells: a single job queued after it runs first.
    const single = await execute(t.api, WORKFLOW, { params: { steps: 2 } });
    await waitForJob(t.api, single.prompt_id, ['completed']);
    expect((await batchDetail(t, batch.id)).cells[waiting.index]).toMatchObject({ status: 'queued', engine_id: null });
    expect((await post(`/api/admin/batches/${batch.id}/resume`)).status).toBe(200);
    await until(async () => (await batchDetail(t, batch.id)).status === 'completed', 'the batch completed with its retried cell', 20_000);
    expect((await batchDetail(t, batch.id)).done).toBe(3);
  });
});

/**
 * Studio's own queue against the stand-in engine: cancel in each state (waiting in Studio,
 * prefetched in the engine's queue, running), pause/resume, fair share between two submitters,
 * move and clear. The engine is slow on purpose (a sampler takes seconds), so the states hold
 * still while they are looked at; nothing here waits on a clock, only on states.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute, plantModels, SHIPPED_MODELS } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { until } from '../../helpers/studio-ws.js';

interface QueuedJob {
  prompt_id: string;
  status: string;
  engine_id: string | null;
  position: number | null;
}
interface State {
  paused: boolean;
  waiting: number;
  running: number;
  engines: Array<{ id: string; running: string | null; prefetched: string[] }>;
}

let t: TestStudio;
let cookie: string;
beforeAll(async () => {
  // 10 sampler steps of 2 s: a job runs for 20 s, long past any check below.
  t = await startTestStudio({ startEngine: true, env: { STANDIN_STEP_MS: '2000', STANDIN_NODE_MS: '20' } });
  plantModels(t.dir, SHIPPED_MODELS);
  cookie = await t.login();
  await until(async () => (await t.studio.engineModule.client.queue().catch(() => null)) !== null, 'the stand-in engine', 30_000);
});
afterAll(async () => {
  await t.stop();
});

const run = (api: TestStudio['api'], prompt: string) => execute(api, 'txt2img-sdxl', { params: { positive: prompt, steps: 2 } });
/** The same Studio, as a signed-in browser (another submitter than the API key client). */
const browser: TestStudio['api'] = (pathname, init = {}) => fetch(t.url + pathname, { ...init, headers: { Cookie: cookie, ...(init.headers as Record<string, string>) } });

async function post(pathname: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await t.api(pathname, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body ?? {}) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
const queue = async () => (await (await t.api('/api/admin/queue')).json()) as QueuedJob[];
const state = async () => (await (await t.api('/api/admin/queue/state')).json()) as State;
const engineQueue = () => t.studio.engineModule.client.queue();
const job = (id: string) => t.studio.jobs.get(id)!;

async function cancelledEvents(): Promise<string[]> {
  const events = (await (await t.api('/api/admin/events?types=job.cancelled&limit=1000')).json()) as Array<{ data: { prompt_id: string } }>;
  return events.map((e) => e.data.prompt_id);
}

describe("Studio's queue", () => {
  it('cancels a job waiting in Studio, one prefetched in the engine and the running one', async () => {
    const first = (await run(t.api, 'one')).prompt_id;
    const second = (await run(t.api, 'two')).prompt_id;
    const third = (await run(t.api, 'three')).prompt_id;
    // One running and one prefetched on the engine; the third waits in Studio.
    await until(async () => (await state()).engines[0]?.running === first, 'first running');
    await until(async () => (await engineQueue()).pending.includes(second), 'second prefetched in the engine');
    const s = await state();
    expect(s).toMatchObject({ paused: false, waiting: 1, running: 1, engines: [{ id: 'local', running: first, prefetched: [second] }] });
    expect(await queue()).toMatchObject([
      { prompt_id: first, status: 'running', engine_id: 'local', position: null },
      { prompt_id: second, status: 'queued', engine_id: 'local', position: null },
      { prompt_id: third, status: 'queued', engine_id: null, position: 0 },
    ]);
    const status = async (id: string) => (await (await t.api(`/api/run/status/${id}`)).json()) as Record<string, unknown>;
    // Pending in Studio's order: the prefetched one is next, the waiting one after it.
    expect(await status(second)).toEqual({ status: 'pending', prompt_id: second, queue_position: 1 });
    expect(await status(third)).toEqual({ status: 'pending', prompt_id: third, queue_position: 2 });
    const engineIds = await engineQueue();
    expect([...engineIds.running, ...engineIds.pending]).not.toContain(third);

    // Waiting: it leaves Studio's queue; the engine never sees it.
    const waiting = await post('/api/admin/queue/cancel', { prompt_id: third });
    expect(waiting.status).toBe(200);
    expect(waiting.body).toMatchObject({ prompt_id: third, status: 'cancelled', finished_at: expect.any(String) });
    expect(await t.studio.engineModule.client.history(third)).toBeNull();
    expect(await status(third)).toEqual({ status: 'error', prompt_id: third, error: 'Cancelled', cancelled: true });

    // Prefetched: deleted from the engine's queue.
    expect((await post('/api/admin/queue/cancel', { prompt_id: second })).body).toMatchObject({ status: 'cancelled' });
    const afterSecond = await engineQueue();
    expect([...afterSecond.running, ...afterSecond.pending]).not.toContain(second);

    // Running: interrupted on the engine; the folder stays.
    expect((await post('/api/admin/queue/cancel', { prompt_id: first })).body).toMatchObject({ status: 'cancelled' });
    await until(async () => (await engineQueue()).running.length === 0, 'the engine stopped the running prompt');
    expect(fs.existsSync(path.join(t.dir, 'assets', 'output', job(first).output_dir!))).toBe(true);

    for (const id of [first, second, third]) expect(job(id).status).toBe('cancelled');
    // One job.cancelled event each (the event log is written as the change is published).
    const events = await cancelledEvents();
    for (const id of [first, second, third]) expect(events.filter((e) => e === id)).toHaveLength(1);
    expect(await queue()).toEqual([]);
    // Cancelled jobs are history, filterable by their status.
    const history = (await (await t.api('/api/admin/history?status=cancelled')).json()) as QueuedJob[];
    expect(history.map((j) => j.prompt_id).sort()).toEqual([first, second, third].sort());

    expect((await post('/api/admin/queue/cancel', { prompt_id: first })).status).toBe(409);
    expect((await post('/api/admin/queue/cancel', { prompt_id: 'no-such-job' })).status).toBe(404);
    expect((await post('/api/admin/queue/cancel', {})).status).toBe(400);
  });

  it('pauses, shares fairly between two submitters, moves, resumes and clears', async () => {
    expect((await post('/api/admin/queue/pause')).body).toMatchObject({ paused: true });
    const a: string[] = [];
    for (const p of ['a1', 'a2', 'a3']) a.push((await run(t.api, p)).prompt_id);
    const b: string[] = [];
    for (const p of ['b1', 'b2']) b.push((await run(browser, p)).prompt_id);

    // Round-robin between the API key client and the browser session, not first come first served.
    const order = [a[0], b[0], a[1], b[1], a[2]];
    expect((await queue()).map((j) => [j.prompt_id, j.engine_id, j.position])).toEqual(order.map((id, i) => [id, null, i]));
    expect(await state()).toMatchObject({ paused: true, waiting: 5, running: 0 });
    const onEngine = await engineQueue();
    expect(onEngine.running.length + onEngine.pending.length).toBe(0);

    // Move the last to the front, and one past the end (clamped to the end).
    expect((await post('/api/admin/queue/move', { prompt_id: a[2], position: 0 })).status).toBe(200);
    expect((await post('/api/admin/queue/move', { prompt_id: b[0], position: 99 })).status).toBe(200);
    expect((await queue()).map((j) => j.prompt_id)).toEqual([a[2], a[0], a[1], b[1], b[0]]);
    expect((await post('/api/admin/queue/move', { prompt_id: 'no-such-job', position: 0 })).status).toBe(404);
    expect((await post('/api/admin/queue/move', { prompt_id: a[0], position: -1 })).status).toBe(400);

    // Resume: the first two in line go to the engine (one running, one prefetched), the rest wait.
    expect((await post('/api/admin/queue/resume')).body).toMatchObject({ paused: false });
    await until(async () => {
      const s = await state();
      return s.engines[0]?.running === a[2] && s.engines[0]?.prefetched.length === 1 ? s : undefined;
    }, 'two jobs on the engine');
    expect((await state()).engines[0]?.prefetched).toEqual([a[0]]);
    // A job on an engine cannot be moved.
    const moved = await post('/api/admin/queue/move', { prompt_id: a[0], position: 0 });
    expect(moved.status).toBe(409);

    // Clear cancels what waits in Studio, not what the engine holds.
    expect((await post('/api/admin/queue/clear')).body).toEqual({ cancelled: 3 });
    for (const id of [a[1]!, b[1]!, b[0]!]) expect(job(id).status).toBe('cancelled');
    expect((await queue()).map((j) => j.prompt_id)).toEqual([a[2], a[0]]);
    for (const id of [a[2], a[0]]) expect((await post('/api/admin/queue/cancel', { prompt_id: id })).status).toBe(200);
    expect(await queue()).toEqual([]);
  });
});

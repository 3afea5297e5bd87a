/**
 * What each person may run and how much (issue 43, points 3 and 4), over real HTTP as people
 * signed in by password or holding a personal key: past a quota a run is a 429 with `Retry-After`
 * and words saying when, on execute, retry and preset run alike; a workflow or a model file
 * outside a person's allow-list is a 403 naming it; neither writes a job. The owner is not limited.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobFixtures } from '../../helpers/job-fixtures.js';
import { addPerson, as, json, makeKey, signIn, type Person } from '../../helpers/people.js';
import { executeRaw, jobRecord, plantModels, SHIPPED_MODELS } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { localStamp } from '../../../server/time.js';

type Auth = { cookie: string } | { key: string };

let t: TestStudio;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

beforeAll(async () => {
  t = await startTestStudio({ startEngine: true });
  await t.studio.engineReady();
  plantModels(t.dir, SHIPPED_MODELS);
});
afterAll(async () => t?.stop());

const apiOf = (auth: Auth) => (pathname: string, init?: RequestInit) => as(t, auth, pathname, init);
const sdxl = { params: { positive: 'a lighthouse', steps: 2 } };
const upscaled = { params: { ...sdxl.params, upscale: true } };

function jobRows(): number {
  return (t.studio.db.prepare('SELECT COUNT(*) AS n FROM jobs').get() as { n: number }).n;
}

/** A finished (or, with `status`, waiting) job of `person` submitted `agoMs` before now. */
function plant(person: Person, id: string, agoMs: number, over: { duration?: number; status?: 'completed' | 'queued' } = {}): void {
  jobFixtures(t.studio).insert(
    jobRecord({ prompt_id: id, status: over.status ?? 'completed', workflow_id: 'txt2img-sdxl', workflow_name: 'SDXL', params: { positive: 'planted', steps: 2 }, duration: over.duration ?? 1, owner_id: person.id }),
    Date.now() - agoMs,
  );
}

async function refusal(res: Response, status: number): Promise<string> {
  const body = (await res.json()) as { detail: unknown };
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(typeof body.detail).toBe('string');
  return body.detail as string;
}

/** `Retry-After` in seconds, checked to be within `near ± slack`. */
function retryAfter(res: Response, near: number, slack = 10): number {
  const value = Number(res.headers.get('retry-after'));
  expect(value).toBeGreaterThanOrEqual(near - slack);
  expect(value).toBeLessThanOrEqual(near + 1);
  return value;
}

describe('quotas', () => {
  it("refuses B's job N+1 in an hour with 429, Retry-After and when, on every submission path, writing no job", async () => {
    const b = await addPerson(t, 'Hana', 'member', { quotas: { jobs_per_hour: 3 } });
    const key = { key: (await makeKey(t, await signIn(t, b), 'run')).key };
    plant(b, 'hana-old', 40 * MINUTE);
    plant(b, 'hana-recent', 10 * MINUTE);
    // The third of the hour runs.
    expect((await executeRaw(apiOf(key), 'txt2img-sdxl', sdxl)).status).toBe(200);
    expect((await as(t, key, '/api/admin/presets', json('POST', { id: 'hana-sdxl', workflow: { workflow_id: 'txt2img-sdxl', params: sdxl.params } }))).status).toBe(200);
    const before = jobRows();

    const res = await executeRaw(apiOf(key), 'txt2img-sdxl', sdxl);
    // The oldest counted job (40 minutes ago) leaves the hour in 20 minutes.
    retryAfter(res, 20 * 60);
    // The date follows the time when that hour falls on another day (an hour before midnight).
    expect(await refusal(res, 429)).toMatch(/^3 jobs per hour reached; you can run again at \d\d:\d\d( on \d{4}-\d\d-\d\d)?$/);

    const retry = await as(t, key, '/api/admin/history/retry', json('POST', { prompt_id: 'hana-old' }));
    retryAfter(retry, 20 * 60);
    expect(await refusal(retry, 429)).toMatch(/3 jobs per hour/);
    const preset = await as(t, key, '/api/admin/presets/hana-sdxl/run', json('POST', {}));
    retryAfter(preset, 20 * 60);
    expect(await refusal(preset, 429)).toMatch(/3 jobs per hour/);
    expect(jobRows()).toBe(before);

    const me = (await (await as(t, key, '/api/me')).json()) as { quotas: { jobs_per_hour: number }; use: { jobs_this_hour: number; jobs_today: number } };
    expect(me.quotas.jobs_per_hour).toBe(3);
    expect(me.use).toMatchObject({ jobs_this_hour: 3, jobs_today: 3 });
  });

  it('counts the jobs of a day in a sliding 24 hours', async () => {
    const d = await addPerson(t, 'Dora', 'member', { quotas: { jobs_per_day: 2, jobs_per_hour: 5 } });
    const cookie = { cookie: await signIn(t, d) };
    plant(d, 'dora-1', 23 * HOUR);
    plant(d, 'dora-2', 3 * HOUR);
    const res = await executeRaw(apiOf(cookie), 'txt2img-sdxl', sdxl);
    retryAfter(res, 60 * 60);
    expect(await refusal(res, 429)).toMatch(/^2 jobs per day reached; you can run again at /);
  });

  it('refuses a job past the jobs waiting at once, with a short fixed Retry-After it names', async () => {
    const w = await addPerson(t, 'Wes', 'member', { quotas: { waiting: 1 } });
    const cookie = { cookie: await signIn(t, w) };
    plant(w, 'wes-waiting', MINUTE, { status: 'queued' });
    const before = jobRows();
    const res = await executeRaw(apiOf(cookie), 'txt2img-sdxl', sdxl);
    expect(res.headers.get('retry-after')).toBe('30');
    expect(await refusal(res, 429)).toMatch(/^1 job waiting at once reached; .*30 s/);
    expect(jobRows()).toBe(before);
    jobFixtures(t.studio).delete(['wes-waiting']);
    expect((await executeRaw(apiOf(cookie), 'txt2img-sdxl', sdxl)).status).toBe(200);
  });

  it("refuses a run once the day's GPU-seconds are used, until enough of them leave the 24 hours", async () => {
    const g = await addPerson(t, 'Gus', 'member', { quotas: { gpu_seconds_per_day: 100 } });
    const cookie = { cookie: await signIn(t, g) };
    plant(g, 'gus-long-ago', 30 * HOUR, { duration: 500 });
    plant(g, 'gus-1', 5 * HOUR, { duration: 60 });
    plant(g, 'gus-2', 2 * HOUR, { duration: 30 });
    // Cancelled after running 20 s: no duration recorded, its start and end count.
    jobFixtures(t.studio).insert(
      jobRecord({ prompt_id: 'gus-cancelled', status: 'cancelled', workflow_id: 'txt2img-sdxl', started_at: '2026-11-20T10:00:00', finished_at: '2026-11-20T10:00:20', owner_id: g.id }),
      Date.now() - HOUR,
    );
    const res = await executeRaw(apiOf(cookie), 'txt2img-sdxl', sdxl);
    // 110 s used; once the 60 s job of five hours ago leaves the window (in 19 hours), 50 s remain.
    retryAfter(res, 19 * 60 * 60);
    expect(await refusal(res, 429)).toMatch(/^100 GPU-seconds per day reached; you can run again at /);
    const me = (await (await as(t, cookie, '/api/me')).json()) as { use: { gpu_seconds_today: number } };
    expect(me.use.gpu_seconds_today).toBe(110);
  });
});

describe('GPU-seconds count the engine run only', () => {
  it('a job that never reached running counts nothing, however long it waited', async () => {
    const q = await addPerson(t, 'Quin', 'member', { quotas: { gpu_seconds_per_day: 100 } });
    const cookie = { cookie: await signIn(t, q) };
    // Two hours in the queue, then refused by the engine / failed before it ran.
    for (const [id, end] of [['quin-refused', 'error'], ['quin-done', 'completed']] as const) {
      await t.studio.lifecycle.submit(jobRecord({ prompt_id: id, status: 'queued', workflow_id: 'txt2img-sdxl', queued_at: localStamp(new Date(Date.now() - 2 * HOUR)), owner_id: q.id }), async () => undefined);
      t.studio.lifecycle.move(id, end === 'error' ? { to: 'error', error: '[CheckpointLoaderSimple] refused' } : { to: 'completed', output: null });
      expect(t.studio.jobsModule.jobs.get(id)).toMatchObject({ status: end, started_at: null, duration: null });
    }
    const me = (await (await as(t, cookie, '/api/me')).json()) as { use: { gpu_seconds_today: number } };
    expect(me.use.gpu_seconds_today).toBe(0);
    expect((await executeRaw(apiOf(cookie), 'txt2img-sdxl', sdxl)).status).toBe(200);
  });
});

describe('allow-lists', () => {
  it('refuses a workflow outside the list with 403 naming it', async () => {
    const b = await addPerson(t, 'Bea', 'member', { allow: { workflows: ['txt2img-sdxl', 'txt2img-sdxl-lora'], models: ['checkpoints/'] } });
    const cookie = { cookie: await signIn(t, b) };
    const before = jobRows();
    expect(await refusal(await executeRaw(apiOf(cookie), 'image-filter'), 403)).toMatch(/"image-filter"/);
    expect(jobRows()).toBe(before);
  });

  it('refuses a run whose graph names a model outside the list with 403 naming it, before it is queued', async () => {
    const b = await addPerson(t, 'Bo', 'member', { allow: { models: ['checkpoints/', 'foo.safetensors'] } });
    const key = { key: (await makeKey(t, await signIn(t, b), 'run')).key };
    const before = jobRows();

    // Upscaled, the graph loads RealESRGAN_x4plus.pth (upscale_models/): not in Bo's list.
    const detail = await refusal(await executeRaw(apiOf(key), 'txt2img-sdxl-lora', upscaled), 403);
    expect(detail).toMatch(/RealESRGAN_x4plus\.pth/);
    expect(jobRows()).toBe(before);
    // Bo's queue and history (only Bo's jobs) stay empty.
    expect(await (await as(t, key, '/api/admin/queue')).json()).toEqual([]);
    expect(await (await as(t, key, '/api/admin/history')).json()).toEqual([]);

    // Its checkpoint is under checkpoints/: the plain workflow runs; the owner, unlimited, runs the upscaled one.
    expect((await executeRaw(apiOf(key), 'txt2img-sdxl', sdxl)).status).toBe(200);
    expect((await executeRaw(t.api, 'txt2img-sdxl-lora', upscaled)).status).toBe(200);
  });

  it('shows no graph through /build that the person may not run: the same 403s as execute', async () => {
    const b = await addPerson(t, 'Bex', 'member', { allow: { workflows: ['txt2img-sdxl', 'txt2img-sdxl-lora'], models: ['checkpoints/'] } });
    const cookie = { cookie: await signIn(t, b) };
    const build = (id: string, body: unknown) => as(t, cookie, `/api/run/${id}/build?format=api`, json('POST', body));
    expect(await refusal(await build('image-filter', { params: {} }), 403)).toMatch(/"image-filter"/);
    expect(await refusal(await build('txt2img-sdxl-lora', upscaled), 403)).toMatch(/RealESRGAN_x4plus\.pth/);
    expect((await build('txt2img-sdxl', sdxl)).status).toBe(200);
    // An unknown workflow is still the 404 it was; the owner builds anything.
    expect((await build('no-such-workflow', sdxl)).status).toBe(404);
    expect((await t.api('/api/run/txt2img-sdxl-lora/build?format=api', json('POST', upscaled))).status).toBe(200);
  });

  it('marks in the preset list the presets a person may not run; the owner\'s list is as before', async () => {
    const p = await addPerson(t, 'Pia', 'member', { allow: { workflows: ['txt2img-sdxl'] } });
    const v = await addPerson(t, 'Val', 'viewer');
    for (const [id, workflow] of [['pia-sdxl', 'txt2img-sdxl'], ['pia-noise', 'image-filter']]) {
      expect((await t.api('/api/admin/presets', json('POST', { id, shared: true, workflow: { workflow_id: workflow, params: {} } }))).status).toBe(200);
    }
    const marks = async (auth: { cookie: string } | null) => {
      const res = auth ? await as(t, auth, '/api/admin/presets') : await t.api('/api/admin/presets');
      const list = (await res.json()) as Array<{ id: string; runnable?: boolean }>;
      return Object.fromEntries(list.filter((e) => e.id.startsWith('pia-')).map((e) => [e.id, 'runnable' in e ? e.runnable : 'absent']));
    };
    expect(await marks({ cookie: await signIn(t, p) })).toEqual({ 'pia-sdxl': 'absent', 'pia-noise': false });
    expect(await marks({ cookie: await signIn(t, v) })).toEqual({ 'pia-sdxl': false, 'pia-noise': false });
    expect(await marks(null)).toEqual({ 'pia-sdxl': 'absent', 'pia-noise': 'absent' });
  });
});

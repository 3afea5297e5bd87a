/**
 * Queue and history routes against the stand-in engine: the queue with live progress, history
 * paging and filters, delete (records, folders, events), retry (same params, seeds and input)
 * and the per-job ZIP.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../server/contracts/jobs.contract.js';
import { execute, jobRecord, plantModels, SHIPPED_MODELS, uploadSample, waitForJob } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { connectStudioWs, until, type StudioWsClient } from '../../helpers/studio-ws.js';
import { jobFixtures } from '../../helpers/job-fixtures.js';

let t: TestStudio;
let ws: StudioWsClient;
let image: string;

beforeAll(async () => {
  // image-filter's four nodes take 200 ms each: a second job waits behind the first.
  t = await startTestStudio({ startEngine: true, env: { STANDIN_STEP_MS: '30', STANDIN_NODE_MS: '200' } });
  await t.studio.engineReady();
  plantModels(t.dir, SHIPPED_MODELS);
  ws = await connectStudioWs(t.url, t.apiKey);
  image = await uploadSample(t.api, 'jobs-source.png');
});

afterAll(async () => {
  await ws?.close();
  await t?.stop();
});

const outputDir = () => path.join(t.dir, 'assets', 'output');
const post = (route: string, body: unknown) =>
  t.api(route, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

async function runFilter(params: Record<string, unknown> = {}): Promise<JobRecord> {
  const { prompt_id } = await execute(t.api, 'image-filter', { params: { _existing_input_image: image, ...params } });
  return (await waitForJob(t.api, prompt_id, ['completed', 'error'])) as unknown as JobRecord;
}

describe('GET /api/admin/queue', () => {
  it('lists active jobs with their progress, then drops them when finished', async () => {
    const first = await execute(t.api, 'image-filter', { params: { _existing_input_image: image } });
    const second = await execute(t.api, 'image-filter', { params: { _existing_input_image: image } });
    const queue = (await (await t.api('/api/admin/queue')).json()) as JobRecord[];
    const ids = queue.map((j) => j.prompt_id);
    expect(ids).toContain(second.prompt_id);
    expect(ids.indexOf(second.prompt_id)).toBeGreaterThan(ids.indexOf(first.prompt_id) === -1 ? -2 : ids.indexOf(first.prompt_id));
    const waiting = queue.find((j) => j.prompt_id === second.prompt_id)!;
    expect(waiting.status).toBe('queued');
    expect(waiting.progress).toMatchObject({ status: 'pending', percent: 0 });
    expect(waiting).toMatchObject({ workflow_id: 'image-filter', workflow_name: 'Image noise and blur', input_image: image });
    await waitForJob(t.api, second.prompt_id);
    const after = (await (await t.api('/api/admin/queue')).json()) as JobRecord[];
    expect(after.map((j) => j.prompt_id)).not.toContain(second.prompt_id);
    expect(after.map((j) => j.prompt_id)).not.toContain(first.prompt_id);
  });
});

describe('GET /api/admin/history', () => {
  let made: JobRecord[];
  beforeAll(async () => {
    made = [];
    for (let i = 0; i < 3; i++) made.push(await runFilter());
    made.push(await (async () => {
      const { prompt_id } = await execute(t.api, 'txt2img-sdxl', { params: { positive: 'STANDIN_FAIL', steps: 1 } });
      return (await waitForJob(t.api, prompt_id, ['error'])) as unknown as JobRecord;
    })());
  });

  it('lists finished jobs newest first, without progress', async () => {
    const history = (await (await t.api('/api/admin/history')).json()) as JobRecord[];
    const ids = history.map((j) => j.prompt_id);
    const order = made.map((j) => ids.indexOf(j.prompt_id));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => b - a)).toEqual(order);
    for (const job of history) {
      expect(['completed', 'error', 'stalled']).toContain(job.status);
      expect(job).not.toHaveProperty('progress');
    }
  });

  it('pages with limit/offset and filters by status and workflow_id', async () => {
    const all = (await (await t.api('/api/admin/history')).json()) as JobRecord[];
    const page = (await (await t.api('/api/admin/history?limit=2&offset=1')).json()) as JobRecord[];
    expect(page.map((j) => j.prompt_id)).toEqual(all.slice(1, 3).map((j) => j.prompt_id));
    const rest = (await (await t.api('/api/admin/history?offset=2')).json()) as JobRecord[];
    expect(rest.map((j) => j.prompt_id)).toEqual(all.slice(2).map((j) => j.prompt_id));
    const errors = (await (await t.api('/api/admin/history?status=error')).json()) as JobRecord[];
    expect(errors.length).toBeGreaterThanOrEqual(1);
    expect(errors.every((j) => j.status === 'error')).toBe(true);
    const sdxl = (await (await t.api('/api/admin/history?workflow_id=txt2img-sdxl')).json()) as JobRecord[];
    expect(sdxl.every((j) => j.workflow_id === 'txt2img-sdxl')).toBe(true);
    expect(sdxl.map((j) => j.prompt_id)).toContain(made[3]!.prompt_id);
  });

  it('answers one job by prompt id for its page, and 404 for an unknown one', async () => {
    const res = await t.api(`/api/admin/history/${made[0]!.prompt_id}`);
    expect(res.status).toBe(200);
    const job = (await res.json()) as JobRecord;
    expect(job).toMatchObject({ prompt_id: made[0]!.prompt_id, workflow_id: 'image-filter', status: 'completed' });
    expect(job.seeds).toEqual(made[0]!.seeds);
    const missing = await t.api('/api/admin/history/no-such-job');
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { detail: string }).detail).toContain('no-such-job');
  });

  it('answers 400 for a bad limit, offset or status', async () => {
    for (const q of ['limit=0', 'limit=abc', 'offset=-1', 'status=queued']) {
      expect((await t.api(`/api/admin/history?${q}`)).status, q).toBe(400);
    }
  });
});

describe('POST /api/admin/history/retry', () => {
  it('re-runs with the same params, resolved seeds and input image; records retry_of; emits job.retried', async () => {
    const original = await (async () => {
      const { prompt_id } = await execute(t.api, 'image-filter', { params: { _existing_input_image: image, strength: 0.7, blur_radius: 4 } });
      return (await waitForJob(t.api, prompt_id)) as unknown as JobRecord;
    })();
    const res = await post('/api/admin/history/retry', { prompt_id: original.prompt_id });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { prompt_id: string; retry_of: string };
    expect(body.retry_of).toBe(original.prompt_id);
    expect(body.prompt_id).not.toBe(original.prompt_id);
    const retried = (await waitForJob(t.api, body.prompt_id)) as unknown as JobRecord;
    expect(retried.retry_of).toBe(original.prompt_id);
    expect(retried.seeds).toEqual(original.seeds);
    expect(retried.input_image).toBe(original.input_image);
    expect(retried.params).toMatchObject({ strength: 0.7, blur_radius: 4, seed: original.seeds.seed, image: original.input_image });
    expect(retried.output_dir).not.toBe(original.output_dir);
    expect(fs.readdirSync(path.join(outputDir(), retried.output_dir!, 'final'))).toHaveLength(1);
    const event = await until(
      () => ws.ofType('event').find((f) => f.data.type === 'job.retried' && (f.data.data as { retry_of?: string }).retry_of === original.prompt_id),
      'job.retried',
    );
    expect((event.data.data as { prompt_id: string }).prompt_id).toBe(body.prompt_id);
  });

  it('retries a failed job too', async () => {
    const { prompt_id } = await execute(t.api, 'txt2img-sdxl', { params: { positive: 'x STANDIN_FAIL', steps: 1 } });
    const failed = (await waitForJob(t.api, prompt_id, ['error'])) as unknown as JobRecord;
    const res = await post('/api/admin/history/retry', { prompt_id });
    expect(res.status).toBe(200);
    const { prompt_id: again } = (await res.json()) as { prompt_id: string };
    const retried = (await waitForJob(t.api, again, ['error'])) as unknown as JobRecord;
    expect(retried.seeds).toEqual(failed.seeds);
    expect(retried.error).toBe(failed.error);
  });

  it('answers 400 without prompt_id or without workflow_id, 404 for an unknown job', async () => {
    expect((await post('/api/admin/history/retry', {})).status).toBe(400);
    expect((await post('/api/admin/history/retry', { prompt_id: 42 })).status).toBe(400);
    expect((await post('/api/admin/history/retry', { prompt_id: 'nope' })).status).toBe(404);
    jobFixtures(t.studio).insert(
      jobRecord({
        prompt_id: 'orphan-1',
        status: 'stalled',
        error: 'lost',
      }),
    );
    const res = await post('/api/admin/history/retry', { prompt_id: 'orphan-1' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toContain('workflow_id');
  });

  it('answers 500 when the workflow is gone', async () => {
    jobFixtures(t.studio).insert(
      jobRecord({
        prompt_id: 'gone-1',
        workflow_id: 'deleted-workflow',
        workflow_name: 'Deleted',
        status: 'error',
        error: 'x',
      }),
    );
    expect((await post('/api/admin/history/retry', { prompt_id: 'gone-1' })).status).toBe(500);
  });
});

describe('GET /api/admin/history/{id}/package', () => {
  it('streams a ZIP with job.json, lock.json, input/ and output/', async () => {
    const job = await runFilter();
    const res = await t.api(`/api/admin/history/${job.prompt_id}/package`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="job_${job.output_dir}.zip"`);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-zip-'));
    try {
      const file = path.join(dir, 'job.zip');
      fs.writeFileSync(file, Buffer.from(await res.arrayBuffer()));
      const listing = execFileSync('unzip', ['-Z1', file], { encoding: 'utf8' }).trim().split('\n').sort();
      expect(listing).toEqual(['input/' + job.input_image, 'job.json', 'lock.json', 'output/final/filtered_00001_.png'].sort());
      expect(JSON.parse(execFileSync('unzip', ['-p', file, 'lock.json'], { encoding: 'utf8' }))).toMatchObject({ lock_version: 1, prompt_id: job.prompt_id });
      // `unzip -l` agrees (the archive is well-formed), and job.json is the full record.
      expect(execFileSync('unzip', ['-l', file], { encoding: 'utf8' })).toContain('job.json');
      const record = JSON.parse(execFileSync('unzip', ['-p', file, 'job.json'], { encoding: 'utf8' })) as JobRecord;
      expect(record).toEqual(t.studio.jobs.get(job.prompt_id));
      const png = execFileSync('unzip', ['-p', file, 'output/final/filtered_00001_.png']);
      expect(png.equals(fs.readFileSync(path.join(outputDir(), job.output_dir!, 'final', 'filtered_00001_.png')))).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers 404 for an unknown job', async () => {
    const res = await t.api('/api/admin/history/nope/package');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/json/);
  });
});

describe('POST /api/admin/history/delete', () => {
  it('removes records and folders, emits job.deleted per job, lists unknown ids in errors', async () => {
    const a = await runFilter();
    const b = await runFilter();
    for (const job of [a, b]) expect(fs.existsSync(path.join(outputDir(), job.output_dir!))).toBe(true);
    const res = await post('/api/admin/history/delete', { prompt_ids: [a.prompt_id, b.prompt_id, 'nope'] });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ deleted: [a.prompt_id, b.prompt_id], errors: ['nope: not found'] });
    for (const job of [a, b]) {
      expect(fs.existsSync(path.join(outputDir(), job.output_dir!))).toBe(false);
      expect(t.studio.jobs.get(job.prompt_id)).toBeNull();
    }
    const history = (await (await t.api('/api/admin/history')).json()) as JobRecord[];
    expect(history.map((j) => j.prompt_id)).not.toContain(a.prompt_id);
    for (const job of [a, b]) {
      await until(
        () => ws.ofType('event').find((f) => f.data.type === 'job.deleted' && (f.data.data as { prompt_id?: string }).prompt_id === job.prompt_id),
        'job.deleted event',
      );
    }
    expect(ws.ofType('job.deleted').some((f) => (f.data.prompt_ids as string[]).includes(a.prompt_id))).toBe(true);
    // The input image is shared with other jobs: it stays.
    expect(fs.existsSync(path.join(t.dir, 'assets', 'input', image))).toBe(true);
  });

  it('cancels a job that is still queued and removes its folder', async () => {
    const first = await execute(t.api, 'image-filter', { params: { _existing_input_image: image } });
    const second = await execute(t.api, 'image-filter', { params: { _existing_input_image: image } });
    const folder = t.studio.jobs.get(second.prompt_id)!.output_dir!;
    const res = await post('/api/admin/history/delete', { prompt_ids: [second.prompt_id] });
    expect(await res.json()).toEqual({ deleted: [second.prompt_id], errors: [] });
    await waitForJob(t.api, first.prompt_id);
    const queue = (await (await t.api('/api/admin/queue')).json()) as JobRecord[];
    expect(queue.map((j) => j.prompt_id)).not.toContain(second.prompt_id);
    expect(fs.existsSync(path.join(outputDir(), folder))).toBe(false);
    expect(t.studio.jobs.get(second.prompt_id)).toBeNull();
  });

  it('answers 400 for a body without prompt_ids', async () => {
    expect((await post('/api/admin/history/delete', {})).status).toBe(400);
    expect((await post('/api/admin/history/delete', { prompt_ids: 'x' })).status).toBe(400);
  });
});

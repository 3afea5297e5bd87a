/**
 * `POST /api/admin/presets/from-job/{prompt_id}` (beyond the spec) and the preset id on a
 * retried preset job, against a real Studio and the stand-in engine.
 *
 * Order matters (one Studio and one finished job for the file): "picks the next free id" needs the
 * preset the first test made, and the run test uses `my-filter`, made by the test before it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute, jobRecord, uploadSample, waitForJob } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { jobFixtures } from '../../helpers/job-fixtures.js';

let t: TestStudio;
let finished: string;
let image: string;

beforeAll(async () => {
  t = await startTestStudio({ startEngine: true });
  await t.studio.engineReady();
  image = await uploadSample(t.api, 'source.png');
  const { prompt_id } = await execute(t.api, 'image-filter', { params: { _existing_input_image: image, strength: 0.4, blur_radius: 2 } });
  await waitForJob(t.api, prompt_id);
  finished = prompt_id;
});

afterAll(async () => {
  await t?.stop();
});

function fromJob(promptId: string, body?: unknown): Promise<Response> {
  return t.api(`/api/admin/presets/from-job/${promptId}`, {
    method: 'POST',
    ...(body === undefined ? {} : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }),
  });
}

async function detail(res: Response): Promise<string> {
  return ((await res.json()) as { detail: string }).detail;
}

describe('POST /api/admin/presets/from-job/{prompt_id}', () => {
  it('makes a preset with the job workflow, parameters and resolved seeds (no body needed)', async () => {
    const job = t.studio.jobs.get(finished)!;
    const res = await fromJob(finished);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { id: string; message: string };
    expect(body.id).toBe(`image-filter-${finished.replace(/-/g, '').slice(0, 8)}`);
    expect(body.message).toContain(finished);
    const preset = (await (await t.api(`/api/admin/presets/${body.id}`)).json()) as Record<string, unknown>;
    expect(preset).toEqual({
      id: body.id,
      name: `Image noise and blur (${job.queued_at!.replace('T', ' ')})`,
      description: '',
      private: false,
      workflow: { workflow_id: 'image-filter', workflow_name: 'Image noise and blur', params: { image, strength: 0.4, blur_radius: 2, seed: job.seeds.seed } },
      source: { type: 'job', prompt_id: finished },
      needs_image: false,
    });
    expect(fs.existsSync(path.join(t.dir, 'presets', `${body.id}.json`))).toBe(true);
    const row = t.studio.db.prepare('SELECT workflow_id FROM saved_prompts WHERE id = ?').get(body.id) as { workflow_id: string } | undefined;
    expect(row?.workflow_id).toBe('image-filter');
  });

  it('picks the next free id when the default one is taken', async () => {
    const res = await fromJob(finished);
    expect(((await res.json()) as { id: string }).id).toBe(`image-filter-${finished.replace(/-/g, '').slice(0, 8)}-2`);
  });

  it('takes id and name from the body; 409 when that id exists', async () => {
    let res = await fromJob(finished, { id: 'my-filter', name: 'My filter' });
    expect(await res.json()).toMatchObject({ id: 'my-filter' });
    expect(await (await t.api('/api/admin/presets/my-filter')).json()).toMatchObject({ name: 'My filter' });
    res = await fromJob(finished, { id: 'my-filter', name: 'Other' });
    expect(res.status).toBe(409);
    expect(await (await t.api('/api/admin/presets/my-filter')).json()).toMatchObject({ name: 'My filter' });
  });

  it('a preset made from a job, run with its seed, sends the same graph inputs', async () => {
    const job = t.studio.jobs.get(finished)!;
    const form = new FormData();
    form.append('seed', String(job.seeds.seed));
    const res = await t.api('/api/admin/presets/my-filter/run', { method: 'POST', body: form });
    const { prompt_id, seeds } = (await res.json()) as { prompt_id: string; seeds: Record<string, number> };
    expect(seeds).toEqual(job.seeds);
    await waitForJob(t.api, prompt_id);
    const again = t.studio.jobs.get(prompt_id)!;
    expect(again.params).toMatchObject({ image, strength: 0.4, blur_radius: 2, seed: job.seeds.seed });
    expect(again.input_image).toBe(image);
    expect(again.preset_id).toBe('my-filter');

    // A retry of a preset job is still that preset's job.
    const retry = await t.api('/api/admin/history/retry', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ prompt_id }) });
    expect(retry.status).toBe(200);
    const retried = (await retry.json()) as { prompt_id: string };
    expect(t.studio.jobs.get(retried.prompt_id)?.preset_id).toBe('my-filter');
    await waitForJob(t.api, retried.prompt_id);
  });

  it('answers 404 unknown job, 400 for a job still queued, a bad id or a bad body', async () => {
    let res = await fromJob('00000000-0000-4000-8000-000000000000');
    expect(res.status).toBe(404);
    jobFixtures(t.studio).insert(jobRecord({ prompt_id: 'queued-one', status: 'queued', workflow_id: 'image-filter' }));
    res = await fromJob('queued-one');
    expect(res.status).toBe(400);
    expect(await detail(res)).toMatch(/still queued/);
    jobFixtures(t.studio).delete(['queued-one']);
    res = await fromJob(finished, { id: 'bad id' });
    expect(res.status).toBe(400);
    expect(await detail(res)).toMatch(/\bid\b/);
    res = await fromJob(finished, { name: 5 });
    expect(res.status).toBe(400);
    expect(await detail(res)).toMatch(/name/);
  });
});

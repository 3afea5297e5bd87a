/**
 * Placeholder questions and preset runs against a real Studio and the stand-in engine: the
 * answers and the seed must show up in the graph the engine received, the job records its
 * preset, and every bad request is a 4xx naming what is wrong.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plantModels, SAMPLE_PNG, SHIPPED_MODELS, uploadSample, waitForJob } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let t: TestStudio;

type Graph = Record<string, { class_type: string; inputs: Record<string, unknown> }>;

beforeAll(async () => {
  t = await startTestStudio({ startEngine: true });
  await t.studio.engineReady();
  // The engine (and the stand-in) refuse a checkpoint their model folders do not hold.
  plantModels(t.dir, SHIPPED_MODELS);
  await create({
    id: 'story',
    workflow: {
      workflow_id: 'txt2img-sdxl',
      params: {
        positive: 'Scene 1: a [[Animal:fox|snow hare]] [[Light:at dawn|(at dusk:1.2)]]\nScene 2: it [[Action:runs|sleeps]]',
        negative: 'blurry, [[Avoid:text|watermark [logo]]]',
        steps: 2,
        seed: 777,
        notes: { tags: ['[[Tag:one|two]]'] },
      },
    },
  });
  await create({ id: 'plain', workflow: { workflow_id: 'image-filter', params: { strength: 0.2, blur_radius: 1 } } });
});

afterAll(async () => {
  await t?.stop();
});

async function create(body: unknown): Promise<void> {
  const res = await t.api('/api/admin/presets', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(`create: ${res.status} ${await res.text()}`);
}

interface RunFields {
  seed?: string;
  answers?: unknown;
  existing_image?: string;
  image?: { data: Buffer; name: string };
}

function run(id: string, fields: RunFields = {}): Promise<Response> {
  const form = new FormData();
  if (fields.seed !== undefined) form.append('seed', fields.seed);
  if (fields.answers !== undefined) form.append('answers', typeof fields.answers === 'string' ? fields.answers : JSON.stringify(fields.answers));
  if (fields.existing_image !== undefined) form.append('existing_image', fields.existing_image);
  if (fields.image) form.append('input_image', new Blob([new Uint8Array(fields.image.data)], { type: 'image/png' }), fields.image.name);
  return t.api(`/api/admin/presets/${id}/run`, { method: 'POST', body: form });
}

async function ok(res: Response): Promise<{ prompt_id: string; seeds: Record<string, number> }> {
  const body = (await res.json()) as { prompt_id: string; seeds: Record<string, number>; detail?: string };
  if (res.status !== 200) throw new Error(`run: ${res.status} ${body.detail}`);
  return body;
}

async function detail(res: Response): Promise<string> {
  return ((await res.json()) as { detail: string }).detail;
}

/** The graph the engine received for a finished prompt (from its history). */
async function engineGraph(promptId: string): Promise<Graph> {
  await waitForJob(t.api, promptId, ['completed', 'error']);
  const history = (await (await fetch(`${t.studio.engine.url}/history/${promptId}`)).json()) as Record<string, { prompt: unknown[] }>;
  return history[promptId]!.prompt[2] as Graph;
}

const ALL_ANSWERS = { '0': 'snow hare', '1': '(at dusk:1.2)', '2': 'sleeps', '3': 'watermark [logo]', '4': 'two' };

describe('GET /api/admin/presets/{id}/placeholders', () => {
  it('lists every question in field order, then position, with scenes', async () => {
    const res = await t.api('/api/admin/presets/story/placeholders');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([
      { index: 0, scene: 1, question: 'Animal', options: ['fox', 'snow hare'], raw: '[[Animal:fox|snow hare]]', field: 'positive' },
      { index: 1, scene: 1, question: 'Light', options: ['at dawn', '(at dusk:1.2)'], raw: '[[Light:at dawn|(at dusk:1.2)]]', field: 'positive' },
      { index: 2, scene: 2, question: 'Action', options: ['runs', 'sleeps'], raw: '[[Action:runs|sleeps]]', field: 'positive' },
      { index: 3, scene: 0, question: 'Avoid', options: ['text', 'watermark [logo]'], raw: '[[Avoid:text|watermark [logo]]]', field: 'negative' },
      { index: 4, scene: 0, question: 'Tag', options: ['one', 'two'], raw: '[[Tag:one|two]]', field: 'notes' },
    ]);
  });

  it('is an empty array without placeholders; 404 unknown; 400 bad id', async () => {
    expect(await (await t.api('/api/admin/presets/plain/placeholders')).json()).toEqual([]);
    expect((await t.api('/api/admin/presets/nope/placeholders')).status).toBe(404);
    expect((await t.api('/api/admin/presets/no.pe/placeholders')).status).toBe(400);
  });
});

describe('POST /api/admin/presets/{id}/run', () => {
  it('puts the answers and the fixed seed into the graph the engine gets, and records the preset', async () => {
    const { prompt_id, seeds } = await ok(await run('story', { seed: '12345', answers: ALL_ANSWERS }));
    expect(seeds).toEqual({ seed: 12345 });
    const graph = await engineGraph(prompt_id);
    const texts = Object.values(graph)
      .filter((n) => n.class_type === 'CLIPTextEncode')
      .map((n) => n.inputs.text);
    expect(texts.sort()).toEqual(['Scene 1: a snow hare (at dusk:1.2)\nScene 2: it sleeps', 'blurry, watermark [logo]'].sort());
    expect(Object.values(graph).find((n) => n.class_type === 'KSampler')?.inputs.seed).toBe(12345);
    const job = t.studio.jobs.get(prompt_id)!;
    expect(job.preset_id).toBe('story');
    expect(job.params.positive).toBe('Scene 1: a snow hare (at dusk:1.2)\nScene 2: it sleeps');
    const history = (await (await t.api('/api/admin/history')).json()) as Array<{ prompt_id: string; preset_id?: string }>;
    expect(history.find((j) => j.prompt_id === prompt_id)?.preset_id).toBe('story');
    // The preset itself still holds its questions.
    expect(((await (await t.api('/api/admin/presets/story')).json()) as { workflow: { params: { positive: string } } }).workflow.params.positive).toContain('[[Animal:');
  });

  it('draws a new random seed by default instead of the one stored in the preset', async () => {
    const { prompt_id, seeds } = await ok(await run('story', { answers: ALL_ANSWERS }));
    expect(Object.keys(seeds)).toEqual(['seed']);
    expect(Number.isSafeInteger(seeds.seed)).toBe(true);
    expect(seeds.seed).not.toBe(777);
    const graph = await engineGraph(prompt_id);
    expect(Object.values(graph).find((n) => n.class_type === 'KSampler')?.inputs.seed).toBe(seeds.seed);
  });

  it('answers 400 naming the question for a missing answer or one outside the options', async () => {
    const { '2': _dropped, ...missing } = ALL_ANSWERS;
    let res = await run('story', { answers: missing });
    expect(res.status).toBe(400);
    expect(await detail(res)).toMatch(/Missing answer for question 2 "Action"/);
    res = await run('story', { answers: { ...ALL_ANSWERS, '0': 'wolf' } });
    expect(res.status).toBe(400);
    expect(await detail(res)).toMatch(/"wolf" for question 0 "Animal".*not one of its options/);
    res = await run('story', { answers: { ...ALL_ANSWERS, '1': 1 } });
    expect(res.status).toBe(400);
    expect(await detail(res)).toMatch(/question 1 "Light"/);
    res = await run('story');
    expect(res.status).toBe(400);
    expect(await detail(res)).toMatch(/question 0 "Animal"/);
  });

  it('answers 400 for answers that are not a JSON object, unknown indexes and bad seeds', async () => {
    const cases: Array<[RunFields, RegExp]> = [
      [{ answers: '{oops' }, /answers is not valid JSON/],
      [{ answers: '["fox"]' }, /answers must be a JSON object/],
      [{ answers: { ...ALL_ANSWERS, '9': 'x' } }, /no placeholder question with index "9"/],
      [{ answers: ALL_ANSWERS, seed: 'abc' }, /seed/],
      [{ answers: ALL_ANSWERS, seed: '-2' }, /seed/],
      [{ answers: ALL_ANSWERS, seed: '1.5' }, /seed/],
    ];
    const jobsBefore = t.studio.jobs.count();
    for (const [fields, reason] of cases) {
      const res = await run('story', fields);
      expect(res.status, JSON.stringify(fields)).toBe(400);
      expect(await detail(res)).toMatch(reason);
    }
    expect(t.studio.jobs.count()).toBe(jobsBefore);
  });

  it('answers 404 for an unknown preset or a preset whose workflow is gone', async () => {
    expect((await run('nope')).status).toBe(404);
    await create({ id: 'orphan', workflow: { workflow_id: 'no-such-workflow', params: {} } });
    expect((await run('orphan')).status).toBe(404);
  });

  it('runs with an uploaded input_image and checks its bytes', async () => {
    const { prompt_id, seeds } = await ok(await run('plain', { seed: '5', image: { data: fs.readFileSync(SAMPLE_PNG), name: 'in.png' } }));
    expect(seeds).toEqual({ seed: 5 });
    const graph = await engineGraph(prompt_id);
    const job = t.studio.jobs.get(prompt_id)!;
    expect(job.input_image).toMatch(/^in_\d{14}_[0-9a-f]{4}\.png$/);
    expect(graph['1']!.inputs.image).toBe(job.input_image);
    expect(graph['2']!.inputs.seed).toBe(5);
    expect(graph['2']!.inputs.strength).toBe(0.2);
    const res = await run('plain', { image: { data: Buffer.from('not an image at all'), name: 'fake.png' } });
    expect(res.status).toBe(400);
    expect(await detail(res)).toMatch(/input_image/);
  });

  it('runs with existing_image (an engine input file name)', async () => {
    const name = await uploadSample(t.api, 'kept.png');
    const { prompt_id } = await ok(await run('plain', { existing_image: name }));
    const graph = await engineGraph(prompt_id);
    expect(graph['1']!.inputs.image).toBe(name);
    expect(t.studio.jobs.get(prompt_id)!.input_image).toBe(name);
  });
});

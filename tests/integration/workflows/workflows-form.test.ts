/**
 * The form editor's routes on an imported workflow, against the stand-in serving the real
 * ComfyUI 0.29.0 node list: every node's fields with the input that sets each, a saved form
 * (reordered, relabelled, an input removed, a widget added, limits set) that the next run uses,
 * bad forms refused with what is wrong, and a re-import of a changed version that says what
 * changed and keeps the user's edits where the nodes still exist (preview first, then applied).
 *
 * Order matters (one Studio for the file): the listing test reads the form as imported, before
 * the save test changes it; the refusal and re-import tests start from the saved form.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute, plantModels, waitForJob } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { changedClassicUi, classicUi } from '../../fixtures/workflow-import/fixtures.js';

interface Input { id: string; type: string; label?: string; default?: unknown; max?: number; node_id?: number; field?: string; options?: string[] }
interface FormAnswer { manifest: { version: number; inputs: Input[] }; nodes: { id: string; class_type: string; fields: { name: string; used_by?: string; settable: boolean; suggested?: Input; value: unknown }[] }[]; detail?: string }

let t: TestStudio;

beforeAll(async () => {
  t = await startTestStudio({ startEngine: true });
  await t.studio.engineReady();
  plantModels(t.dir, { checkpoints: ['sd_xl_base_1.0.safetensors'] });
  const form = new FormData();
  form.append('file', new Blob([JSON.stringify(classicUi())]), 'fox.json');
  expect((await t.api('/api/admin/workflows/import', { method: 'POST', body: form })).status).toBe(200);
});

afterAll(async () => {
  await t?.stop();
});

const getForm = async (id = 'fox') => {
  const res = await t.api(`/api/admin/workflows/${id}/form`);
  return { status: res.status, body: (await res.json()) as FormAnswer };
};
const putForm = async (inputs: unknown[]) => {
  const res = await t.api('/api/admin/workflows/fox/form', { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ inputs }) });
  return { status: res.status, body: (await res.json()) as FormAnswer & { detail?: string } };
};
const submitted = async (promptId: string) => {
  const history = (await (await fetch(`${t.studio.engine.url}/history/${promptId}`)).json()) as Record<string, { prompt: unknown[] }>;
  return history[promptId]!.prompt[2] as Record<string, { inputs: Record<string, unknown> }>;
};

describe('the form editor', () => {
  it('lists every node with its fields, the input that sets each, and a suggestion for the others', async () => {
    const { status, body } = await getForm();
    expect(status).toBe(200);
    const sampler = body.nodes.find((n) => n.id === '3')!;
    expect(sampler.class_type).toBe('KSampler');
    expect(sampler.fields.find((f) => f.name === 'seed')).toMatchObject({ used_by: 'seed', settable: true });
    expect(sampler.fields.find((f) => f.name === 'steps')).toMatchObject({ used_by: 'steps', value: 25 });
    expect(sampler.fields.find((f) => f.name === 'model')).toMatchObject({ settable: false, value: ['4', 0] });
    expect(sampler.fields.find((f) => f.name === 'sampler_name')!.suggested).toMatchObject({ type: 'select', node_id: 3, field: 'sampler_name', default: 'euler', options: expect.arrayContaining(['dpmpp_2m']) });
    expect((await getForm('txt2img-sdxl-lora')).status).toBe(409);
    expect((await getForm('nope')).status).toBe(404);
  });

  it('saves a reordered, relabelled form with an input removed, a widget added and limits set; the run uses it', async () => {
    const { body } = await getForm();
    const byId = new Map(body.manifest.inputs.map((i) => [i.id, i]));
    const sampler = body.nodes.find((n) => n.id === '3')!.fields.find((f) => f.name === 'sampler_name')!.suggested!;
    const inputs = [
      { ...byId.get('steps')!, max: 30 },
      { ...byId.get('positive')!, label: 'Describe it' },
      { ...sampler, id: 'sampler', label: 'Sampler', default: 'dpmpp_2m' },
      byId.get('cfg')!, byId.get('width')!, byId.get('height')!,
    ];
    const saved = await putForm(inputs);
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.manifest.version).toBe(2);
    expect(saved.body.manifest.inputs.map((i) => i.id)).toEqual(['steps', 'positive', 'sampler', 'cfg', 'width', 'height']);
    const onDisk = parseYaml(fs.readFileSync(path.join(t.dir, 'workflows', 'fox', 'manifest.yaml'), 'utf8')) as { inputs: Input[] };
    expect(onDisk.inputs.find((i) => i.id === 'positive')!.label).toBe('Describe it');
    // The removed seed (a primitive feeding both samplers) is one fixed value in the graph again.
    const graph = JSON.parse(fs.readFileSync(path.join(t.dir, 'workflows', 'fox', 'workflow.json'), 'utf8')) as Record<string, { inputs: Record<string, unknown> }>;
    expect(graph['3']!.inputs.seed).toEqual(expect.any(Number));
    expect(graph['12']!.inputs.noise_seed).toBe(graph['3']!.inputs.seed);

    const run = await execute(t.api, 'fox', { params: { positive: 'a heron', steps: 4 } });
    expect((await waitForJob(t.api, run.prompt_id)).status).toBe('completed');
    const sent = await submitted(run.prompt_id);
    expect(sent['6']!.inputs).toMatchObject({ text: 'a heron' });
    expect(sent['7']!.inputs).toMatchObject({ text: 'blurry' });
    expect(sent['3']!.inputs).toMatchObject({ steps: 4, sampler_name: 'dpmpp_2m', seed: graph['3']!.inputs.seed });
    expect((await execute(t.api, 'fox', { params: { steps: 31 } }).catch((e: Error) => e)).toString()).toMatch(/steps|30/);
  });

  it('refuses a form that points at nothing, at a link, or an input that sets no field', async () => {
    const { body } = await getForm();
    const keep = body.manifest.inputs;
    expect(await putForm([...keep, { id: 'ghost', type: 'int', node_id: 99, field: 'steps', default: 1 }])).toMatchObject({ status: 400, body: { detail: expect.stringMatching(/"ghost": the workflow has no node 99/) } });
    expect(await putForm([...keep, { id: 'm', type: 'text', node_id: 3, field: 'model', default: 'x' }])).toMatchObject({ status: 400, body: { detail: expect.stringMatching(/"model" is linked/) } });
    expect(await putForm([...keep, { id: 'loose', type: 'text', default: 'x' }])).toMatchObject({ status: 400, body: { detail: expect.stringMatching(/"loose" sets no field/) } });
    expect(await putForm([...keep, keep[0]])).toMatchObject({ status: 400, body: { detail: expect.stringMatching(/duplicate input id/) } });
    expect((await getForm()).body.manifest.version).toBe(2);
  });

  it('re-imports a changed version: a preview says what changed, applying keeps the edits where the nodes still exist', async () => {
    const reimport = async (apply: boolean) => {
      const form = new FormData();
      form.append('file', new Blob([JSON.stringify(changedClassicUi())]), 'fox-v2.json');
      form.append('apply', String(apply));
      const res = await t.api('/api/admin/workflows/fox/reimport', { method: 'POST', body: form });
      return { status: res.status, body: (await res.json()) as { applied: boolean; manifest: { version: number; inputs: Input[] }; diff: Record<string, unknown> } };
    };
    const preview = await reimport(false);
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    expect(preview.body.applied).toBe(false);
    expect(preview.body.diff).toEqual({
      nodes_added: [{ id: '20', class_type: 'EmptyLatentImage' }],
      nodes_removed: [{ id: '5', class_type: 'EmptyLatentImage' }],
      // The seed the saved form fixed differs from the new file's; the sampler's steps and latent link changed.
      nodes_changed: [
        { id: '3', class_type: 'KSampler', fields: ['latent_image', 'seed', 'steps'] },
        { id: '12', class_type: 'KSamplerAdvanced', fields: ['noise_seed'] },
      ],
      inputs_kept: ['steps', 'positive', 'sampler', 'cfg'],
      inputs_dropped: [
        { id: 'width', label: 'Width', reason: 'node 5 (EmptyLatentImage) is gone' },
        { id: 'height', label: 'Height', reason: 'node 5 (EmptyLatentImage) is gone' },
      ],
      inputs_added: ['width', 'height', 'batch_size'],
    });
    expect((await getForm()).body.manifest.version).toBe(2);

    const applied = await reimport(true);
    expect(applied.body.applied).toBe(true);
    expect(applied.body.manifest.version).toBe(3);
    const inputs = (await getForm()).body.manifest.inputs;
    expect(inputs.map((i) => i.id)).toEqual(['steps', 'positive', 'sampler', 'cfg', 'width', 'height', 'batch_size']);
    expect(inputs.find((i) => i.id === 'positive')!.label).toBe('Describe it');
    expect(inputs.find((i) => i.id === 'steps')!.max).toBe(30);
    expect(inputs.find((i) => i.id === 'width')).toMatchObject({ node_id: 20, default: 832 });
    expect(fs.readdirSync(path.join(t.dir, 'workflows')).filter((name) => name.startsWith('.'))).toEqual([]);
    const run = await execute(t.api, 'fox', { params: { width: 512 } });
    expect((await waitForJob(t.api, run.prompt_id)).status).toBe('completed');
    expect((await submitted(run.prompt_id))['20']!.inputs).toMatchObject({ width: 512 });
  });
});

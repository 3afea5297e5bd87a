/**
 * A workflow imported through a real engine (ComfyUI), when one is given (`ENGINE_DIR` +
 * `ENGINE_PYTHON`, or `ENGINE_PORT`; see real-engine.test.ts): the editor's format converted with
 * the engine's own `object_info`, the proposed form (a `LoadImage` image, an `Input:`-titled
 * widget with the engine's limits), no package needed (every type is the engine's own, as its
 * `python_module` says), ready; a run with a changed value that completes on the engine, and the
 * test run with the defaults answered by the engine's refusal on the node it concerns.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute, executeRaw, uploadSample, waitForJob } from '../helpers/runner.js';
import { freePort } from '../helpers/ports.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';
import { pngTextChunks } from './png-text.js';

const engineDir = process.env.ENGINE_DIR;
const enginePython = process.env.ENGINE_PYTHON;
const externalPort = process.env.ENGINE_PORT;
const available = Boolean((engineDir && enginePython) || externalPort);

let t: TestStudio;

/** LoadImage → ImageBlur (titled as a form input) → SaveImage, as the engine's editor saves it. */
function blurUi(): Record<string, unknown> {
  const node = (id: number, type: string, widgets: unknown[], inputs: unknown[], outputs: unknown[], extra: Record<string, unknown> = {}) => ({
    id, type, pos: [0, 0], size: [300, 100], flags: {}, order: 0, mode: 0, inputs, outputs, properties: { 'Node name for S&R': type }, widgets_values: widgets, ...extra,
  });
  return {
    last_node_id: 3,
    last_link_id: 2,
    nodes: [
      node(1, 'LoadImage', ['example.png', 'image'], [], [{ name: 'IMAGE', type: 'IMAGE', links: [1] }, { name: 'MASK', type: 'MASK', links: [] }]),
      node(2, 'ImageBlur', [3, 1.0], [{ name: 'image', type: 'IMAGE', link: 1 }], [{ name: 'IMAGE', type: 'IMAGE', links: [2] }], { title: 'Input: Blur amount @blur_radius' }),
      node(3, 'SaveImage', ['imported'], [{ name: 'images', type: 'IMAGE', link: 2 }], []),
    ],
    links: [[1, 1, 0, 2, 0, 'IMAGE'], [2, 2, 0, 3, 0, 'IMAGE']],
    groups: [],
    config: {},
    extra: {},
    version: 0.4,
  };
}

describe.skipIf(!available)('importing a workflow through a real engine', () => {
  beforeAll(async () => {
    const env: Record<string, string> = externalPort
      ? { ENGINE_MODE: 'external', ENGINE_PORT: externalPort }
      : { ENGINE_MODE: 'managed', ENGINE_DIR: engineDir!, ENGINE_PYTHON: enginePython!, ENGINE_PORT: String(await freePort()) };
    // An engine in a chroot sees only its own tree: Studio's data directory sits beside it.
    const dir = fs.mkdtempSync(path.join(engineDir ? path.dirname(engineDir) : os.tmpdir(), 'studio-test-import-'));
    t = await startTestStudio({ startEngine: true, dir, env: { ...env, PATH: process.env.PATH ?? '/usr/bin', HOME: os.homedir() } });
    await t.studio.engineReady(150_000);
  });
  afterAll(async () => {
    await t?.stop();
    if (t) fs.rmSync(t.dir, { recursive: true, force: true });
  });

  it('converts the editor format with the engine, proposes the form, is ready, and runs with a changed value', async () => {
    const form = new FormData();
    form.append('file', new Blob([JSON.stringify(blurUi())]), 'Blur it.json');
    const res = await t.api('/api/admin/workflows/import', { method: 'POST', body: form });
    const body = (await res.json()) as { id: string; manifest: { inputs: Record<string, unknown>[]; required_nodes: string[]; required_models: string[]; outputs: unknown[] }; warnings: string[] };
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.id).toBe('blur-it');
    expect(body.manifest.inputs).toEqual([
      expect.objectContaining({ id: 'blur_amount', label: 'Blur amount', type: 'int', default: 3, min: 1, max: 31, node_id: 2, field: 'blur_radius' }),
      expect.objectContaining({ id: 'image', type: 'image', default: 'example.png', node_id: 1, field: 'image' }),
      // Few inputs: the blur's other widget is proposed too (issue 47, point 7), with the engine's own limits.
      expect.objectContaining({ id: 'sigma', label: 'Sigma', type: 'float', default: 1, min: 0.1, max: 10, node_id: 2, field: 'sigma' }),
    ]);
    expect(body.manifest).toMatchObject({ required_nodes: [], required_models: [], outputs: [{ type: 'image', format: 'png' }] });
    const list = (await (await t.api('/api/admin/workflows')).json()) as { workflows: { id: string; ready: boolean }[] };
    expect(list.workflows.find((w) => w.id === 'blur-it')).toMatchObject({ ready: true });

    const image = await uploadSample(t.api, 'import-real.png');
    const run = await execute(t.api, 'blur-it', { params: { _existing_input_image: image, blur_amount: 5 } });
    await waitForJob(t.api, run.prompt_id, ['completed'], 90_000);
    const job = t.studio.jobs.get(run.prompt_id)!;
    const finals = fs.readdirSync(path.join(t.dir, 'assets', 'output', job.output_dir!, 'final'));
    expect(finals.some((name) => name.endsWith('.png'))).toBe(true);
    // The engine ran the graph Studio built: the changed blur is in the prompt it embedded.
    const png = fs.readFileSync(path.join(t.dir, 'assets', 'output', job.output_dir!, 'final', finals.find((name) => name.endsWith('.png'))!));
    const prompt = JSON.parse(pngTextChunks(png).prompt!) as Record<string, { inputs: Record<string, unknown> }>;
    expect(prompt['2']!.inputs.blur_radius).toBe(5);
  });

  it("test-runs with the defaults: the engine's refusal names the node it concerns", async () => {
    const res = await executeRaw(t.api, 'blur-it');
    expect(res.status).toBe(400);
    const body = (await res.json()) as { detail: string; node_errors?: Record<string, unknown> };
    expect(body.detail).toMatch(/The input file .* is not there/);
    expect(Object.keys(body.node_errors ?? {})).toContain('1');
  });
});

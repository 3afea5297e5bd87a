/**
 * This computer's engine does not answer, and a stand-in added by URL does: `execute` is checked
 * against the engines that could run the job (the stand-in's `object_info`), not refused for the
 * local engine, and the job runs on the stand-in — its input image kept in Studio's input folder
 * and uploaded at hand-over, its outputs pulled into the job folder. With no other engine up the
 * single-engine answer stands (503); a job the stand-in cannot run is a 400 naming what it lacks.
 *
 * Order matters (one Studio for the file; found with --sequence.shuffle): the 503 test runs before
 * the test that adds an engine by URL.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute, executeRaw, SAMPLE_PNG, waitForJob } from '../../helpers/runner.js';
import { startStandin, type StandinProcess } from '../../helpers/standin-process.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { until } from '../../helpers/studio-ws.js';

let t: TestStudio;
let remote: StandinProcess;

const json = async <T>(res: Response) => (await res.json()) as T;
const engineStatus = async (id: string) => (await json<{ engines: Array<{ id: string; status: string }> }>(await t.api('/api/admin/engines'))).engines.find((e) => e.id === id)?.status;

beforeAll(async () => {
  remote = await startStandin({ stepMs: 20, models: { checkpoints: ['sd_xl_base_1.0.safetensors'] } });
  // An external engine on a port nothing listens on: the watch finds it unreachable.
  t = await startTestStudio({ startEngine: true, engineProbeMs: 200, env: { ENGINE_MODE: 'external', ENGINE_POOL_PROBE_MS: '200' } });
  await until(async () => t.studio.engine.state.status === 'unreachable', 'the local engine unreachable', 30_000);
}, 60_000);

afterAll(async () => {
  await t?.stop();
  await remote?.stop();
});

describe('execute with this computer’s engine down', () => {
  it('answers 503 as before while no other engine is up', async () => {
    const res = await executeRaw(t.api, 'txt2img-sdxl', { params: { steps: 2 } });
    expect(res.status).toBe(503);
  });

  it('runs the job on an engine by URL that can, with its input image; refuses one it cannot, naming what it lacks', async () => {
    const added = await t.api('/api/admin/engines', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'Box', url: remote.url }) });
    expect(added.status).toBe(201);
    const { id } = await json<{ id: string }>(added);
    await until(async () => (await engineStatus(id)) === 'online', 'the engine by URL online', 30_000);

    const job = await execute(t.api, 'image-filter', { image: { data: fs.readFileSync(SAMPLE_PNG), name: 'kept.png' } });
    const done = await waitForJob(t.api, job.prompt_id, ['completed', 'error', 'stalled'], 60_000);
    expect(done.status).toBe('completed');
    const record = await json<{ engine_id?: string; input_image: string; output_dir: string }>(await t.api(`/api/admin/history/${job.prompt_id}`));
    expect(record.engine_id).toBe(id);
    // Studio kept the input (no engine took the upload), and the engine by URL got it at hand-over.
    expect(fs.existsSync(path.join(t.dir, 'assets', 'input', record.input_image))).toBe(true);
    expect(fs.existsSync(path.join(remote.dir, 'input', record.input_image))).toBe(true);
    const folder = path.join(t.dir, 'assets', 'output', record.output_dir);
    expect(fs.readdirSync(folder, { recursive: true }).map(String).some((f) => /\.(png|webp|jpg)$/.test(f))).toBe(true);

    const text = await execute(t.api, 'txt2img-sdxl', { params: { steps: 2 } });
    expect((await waitForJob(t.api, text.prompt_id, ['completed', 'error', 'stalled'], 60_000)).status).toBe('completed');

    const video = await executeRaw(t.api, 'img2vid-wan', { params: { steps: 2 }, image: { data: fs.readFileSync(SAMPLE_PNG), name: 'no.png' } });
    expect(video.status).toBe(400);
    const body = await json<{ detail: string }>(video);
    expect(body.detail).toContain('No engine can run it: this computer does not answer');
    expect(body.detail).toMatch(new RegExp(`\\(${id}\\) lacks [^;]*model wan2.1_i2v_480p_14B_fp8_e4m3fn.safetensors`));
  }, 120_000);
});

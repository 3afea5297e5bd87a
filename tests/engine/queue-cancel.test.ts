/**
 * Cancel in each state of Studio's queue against a real engine (ComfyUI): a job waiting in Studio
 * (the engine never sees it), one prefetched in the engine's own queue (deleted from it) and the
 * running one (interrupted on the engine). Each ends `cancelled` with a `job.cancelled` event, and
 * the engine is left idle. Needs ENGINE_DIR + ENGINE_PYTHON (../shared/real-engine/setup.sh).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute, uploadSample, waitForJob } from '../helpers/runner.js';
import { freePort } from '../helpers/ports.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';
import { until } from '../helpers/studio-ws.js';

const engineDir = process.env.ENGINE_DIR;
const enginePython = process.env.ENGINE_PYTHON;

let t: TestStudio;

/** A slow graph with no weights: a scale to 1536² and two wide blurs (seconds even on a quiet CPU). */
function addSlowWorkflow(dir: string): void {
  const wf = path.join(dir, 'workflows', 'rt-cancel');
  fs.mkdirSync(wf, { recursive: true });
  fs.writeFileSync(
    path.join(wf, 'manifest.yaml'),
    'id: rt-cancel\nname: rt-cancel\ntype: static\ncategory: image\ndescription: real engine cancel test\nauthor: test\nversion: 1\ndate: "2026-11-26 01:00"\n' +
      'inputs:\n  - id: image\n    type: image\n    label: Image\n    node_id: 1\n    field: image\noutputs:\n  - type: image\n    format: png\nrequired_models: []\nrequired_nodes: []\n',
  );
  fs.writeFileSync(
    path.join(wf, 'workflow.json'),
    JSON.stringify({
      1: { class_type: 'LoadImage', inputs: { image: '{{image}}' } },
      2: { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'lanczos', width: 1536, height: 1536, crop: 'disabled' } },
      3: { class_type: 'ImageBlur', inputs: { image: ['2', 0], blur_radius: 31, sigma: 10 } },
      4: { class_type: 'ImageBlur', inputs: { image: ['3', 0], blur_radius: 31, sigma: 10 } },
      5: { class_type: 'SaveImage', inputs: { images: ['4', 0], filename_prefix: 'slow' } },
    }),
  );
}

const engineQueue = async () => (await (await fetch(`${t.studio.engine.url}/queue`)).json()) as { queue_running: Array<[number, string]>; queue_pending: Array<[number, string]> };
const cancel = async (promptId: string) => t.api('/api/admin/queue/cancel', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ prompt_id: promptId }) });

describe.skipIf(!engineDir || !enginePython)("Studio's queue on a real engine", () => {
  beforeAll(async () => {
    // Beside the engine: an engine in a chroot sees only its own tree.
    const dir = fs.mkdtempSync(path.join(path.dirname(engineDir!), 'studio-test-cancel-'));
    addSlowWorkflow(dir);
    t = await startTestStudio({
      startEngine: true,
      dir,
      env: { ENGINE_MODE: 'managed', ENGINE_DIR: engineDir!, ENGINE_PYTHON: enginePython!, ENGINE_PORT: String(await freePort()), PATH: process.env.PATH ?? '/usr/bin', HOME: os.homedir() },
    });
    await t.studio.engineReady(150_000);
  });
  afterAll(async () => {
    const dir = t?.dir;
    await t?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('cancels a waiting, a prefetched and the running job', async () => {
    // Three different inputs: the engine caches nodes whose inputs it has seen.
    const images = [await uploadSample(t.api, 'cancel-1.png'), await uploadSample(t.api, 'cancel-2.png'), await uploadSample(t.api, 'cancel-3.png')];
    const ids: string[] = [];
    for (const image of images) ids.push((await execute(t.api, 'rt-cancel', { params: { _existing_input_image: image } })).prompt_id);
    const [first, second, third] = ids as [string, string, string];
    await waitForJob(t.api, first, ['running'], 120_000);
    await until(async () => (await engineQueue()).queue_pending.some(([, id]) => id === second), 'the second prefetched in the engine', 30_000);
    const inEngine = async () => {
      const q = await engineQueue();
      return [...q.queue_running, ...q.queue_pending].map(([, id]) => id);
    };
    expect(await inEngine()).not.toContain(third);

    // Waiting in Studio: it leaves the queue; the engine never sees it.
    expect((await cancel(third)).status).toBe(200);
    expect(t.studio.jobs.get(third)?.status).toBe('cancelled');
    // Prefetched: deleted from the engine's queue.
    expect((await cancel(second)).status).toBe(200);
    expect(t.studio.jobs.get(second)?.status).toBe('cancelled');
    expect((await engineQueue()).queue_pending.map(([, id]) => id)).not.toContain(second);
    // Running: interrupted on the engine, which is idle again soon after.
    expect((await cancel(first)).status).toBe(200);
    expect(t.studio.jobs.get(first)?.status).toBe('cancelled');
    await until(async () => (await inEngine()).length === 0, 'the engine idle', 60_000);
    const history = (await (await fetch(`${t.studio.engine.url}/history/${first}`)).json()) as Record<string, { status?: { status_str?: string; messages?: Array<[string, unknown]> } }>;
    expect(history[first]?.status?.messages?.map(([m]) => m)).toContain('execution_interrupted');
    expect(await inEngine()).not.toContain(third);

    const events = (await (await t.api('/api/admin/events?types=job.cancelled&limit=100')).json()) as Array<{ data: { prompt_id: string; was: string } }>;
    expect(Object.fromEntries(events.map((e) => [e.data.prompt_id, e.data.was]))).toMatchObject({ [first]: 'running', [second]: 'queued', [third]: 'queued' });
    // The engine never ran the cancelled waiting job: no history of it.
    expect(await (await fetch(`${t.studio.engine.url}/history/${third}`)).json()).toEqual({});
  }, 300_000);
});

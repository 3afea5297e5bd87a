/**
 * An image sent with `POST /execute` that the engine stores under another name (it renames on a
 * clash: `x (1).png`): the graph is built once, then names the file the engine kept; the job runs
 * with it and records it as its input.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { execute, SAMPLE_PNG, waitForJob } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

const counted = vi.hoisted(() => ({ prepareRun: 0 }));
vi.mock('../../../server/workflows/graph-builder.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../server/workflows/graph-builder.js')>();
  return {
    ...actual,
    prepareRun: (...args: Parameters<typeof actual.prepareRun>) => {
      counted.prepareRun += 1;
      return actual.prepareRun(...args);
    },
  };
});

let t: TestStudio;

beforeAll(async () => {
  t = await startTestStudio({ startEngine: true });
  await t.studio.engineReady();
});

afterAll(async () => {
  await t?.stop();
});

it('builds the graph once and runs it with the name the engine kept', async () => {
  const client = t.studio.engineModule.client;
  const upload = client.uploadImage.bind(client);
  // The engine found a file of that name already: it keeps the upload as `name (1).png`.
  const renamed = vi.spyOn(client, 'uploadImage').mockImplementation((data, filename, opts) => upload(data, filename.replace(/(\.[a-z]+)$/, ' (1)$1'), opts));
  try {
    counted.prepareRun = 0;
    const { prompt_id } = await execute(t.api, 'image-filter', { image: { data: fs.readFileSync(SAMPLE_PNG), name: 'clash.png' } });
    expect(renamed).toHaveBeenCalledTimes(1);
    expect(counted.prepareRun).toBe(1);
    const job = t.studio.jobs.get(prompt_id)!;
    expect(job.input_image).toMatch(/^clash_.* \(1\)\.png$/);
    expect(await waitForJob(t.api, prompt_id)).toMatchObject({ status: 'completed' });
  } finally {
    renamed.mockRestore();
  }
});

/**
 * LLM_GPU_POLICY=yield hears of every job change through the job lifecycle: when the engine
 * crashes under a running job and the job stalls (whoever noticed: the engine watcher or
 * reconciliation), the parked LLM server comes back — it used to stay parked when the stall was
 * written without a `job.*` event.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../../server/config.js';
import { freePort } from '../../helpers/ports.js';
import { execute, uploadSample, waitForJob } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { until } from '../../helpers/studio-ws.js';

const FAKE = path.join(APP_ROOT, 'tests', 'fixtures', 'children', 'fake-llama-server.mjs');
let dir: string | undefined;
let t: TestStudio | undefined;
afterEach(async () => {
  await t?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  t = undefined;
  dir = undefined;
});

describe('the LLM yield policy and a job stalled by an engine crash', () => {
  it('brings the parked LLM server back once the stalled job leaves the queue', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-llm-yield-'));
    const binary = path.join(dir, 'llama-server');
    fs.writeFileSync(binary, `#!/bin/sh\nexec "${process.execPath}" "${FAKE}" "$@"\n`, { mode: 0o755 });
    const studioDir = path.join(dir, 'studio');
    t = await startTestStudio({
      dir: studioDir,
      startEngine: true,
      env: { LLM_BINARY: binary, LLM_PORT: String(await freePort()), LLM_GPU_POLICY: 'yield', STANDIN_NODE_MS: '5000' },
    });
    await t.studio.engineReady();
    fs.mkdirSync(t.studio.config.paths.llmModels, { recursive: true });
    fs.writeFileSync(path.join(t.studio.config.paths.llmModels, 'm.gguf'), JSON.stringify({ loadMs: 0 }));
    const started = await t.api('/api/admin/llm/start', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ model: 'm.gguf' }) });
    expect(started.status).toBe(200);

    const image = await uploadSample(t.api, 'yield.png');
    const { prompt_id } = await execute(t.api, 'image-filter', { params: { _existing_input_image: image } });
    await until(async () => ((await (await t!.api('/api/admin/llm/status')).json()) as { parked?: boolean }).parked === true, 'LLM parked');
    await waitForJob(t.api, prompt_id, ['running']);

    process.kill(t.studio.engine.state.pid!, 'SIGKILL');
    expect((await waitForJob(t.api, prompt_id, ['stalled', 'completed', 'error'], 60_000)).status).toBe('stalled');
    await until(async () => ((await (await t!.api('/api/admin/llm/status')).json()) as { running?: boolean }).running === true, 'LLM back', 30_000);
    expect(await (await t.api('/api/admin/llm/status')).json()).toMatchObject({ running: true, parked: false });
  }, 120_000);
});

/**
 * The engine's API over a pool of two stand-in engines (issue 44): 20 prompts sent by the SDK's
 * CallWrapper are spread over both; the added engine is killed mid-run, its jobs fail over to the
 * other under the same prompt ids, and every one of the 20 library calls completes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallWrapper, ComfyApi, ComfyPool, EQueueMode, PromptBuilder } from '@saintno/comfyui-sdk';
import { plantModels } from '../../helpers/runner.js';
import { startStandin, type StandinProcess } from '../../helpers/standin-process.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { until } from '../../helpers/studio-ws.js';
import { T2I } from './graphs.js';

let t: TestStudio;
let other: StandinProcess;
let api: ComfyApi;
const clients: ComfyApi[] = [];

beforeAll(async () => {
  other = await startStandin({ stepMs: 60, models: { checkpoints: ['sd_xl_base_1.0.safetensors'] } });
  t = await startTestStudio({ startEngine: true, env: { STANDIN_STEP_MS: '60', STANDIN_NODE_MS: '10', ENGINE_POOL_PROBE_MS: '200', COMFY_API: 'on' } });
  plantModels(t.dir, { checkpoints: ['sd_xl_base_1.0.safetensors'] });
  await until(async () => (await t.studio.engineModule.client.queue().catch(() => null)) !== null, 'the local stand-in', 30_000);
  const added = await t.api('/api/admin/engines', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'Other box', url: other.url }) });
  expect(added.status).toBe(201);
  await until(async () => ((await (await t.api('/api/admin/engines')).json()) as { engines: Array<{ status: string }> }).engines.every((e) => e.status === 'online'), 'both engines online', 30_000);
  api = await new ComfyApi(`${t.url}/comfy`, undefined, { credentials: { type: 'basic', username: 'tool', password: t.apiKey } }).init().waitForReady();
}, 90_000);

afterAll(async () => {
  api?.destroy();
  for (const c of clients) c.destroy();
  await t?.stop();
  await other?.stop();
});

describe("the engine's API over the pool", () => {
  it('spreads 20 prompts over both engines; with one killed mid-run all 20 complete', async () => {
    // The README's pool: several connections (here all to Studio), each given one job at a time.
    const pool = new ComfyPool(
      Array.from({ length: 4 }, () => {
        const c = new ComfyApi(`${t.url}/comfy`, undefined, { credentials: { type: 'bearer_token', token: t.apiKey } });
        clients.push(c);
        return c;
      }),
      EQueueMode.PICK_ZERO,
    );
    let n = 0;
    const generate = (client: ComfyApi) =>
      new Promise<string>((resolve, reject) => {
        const workflow = new PromptBuilder(T2I, ['seed'], ['images']).setInputNode('seed', '3.inputs.seed').setOutputNode('images', '9').input('seed', n++);
        void new CallWrapper(client, workflow)
          .onFinished((_data, id) => resolve(id!))
          .onFailed((err) => {
            // The SDK reports a socket hiccup as a failure but keeps waiting; only real ends reject.
            if (err.name !== 'DisconnectedError') reject(err);
          })
          .run();
      });
    const calls = pool.batch(Array(20).fill(generate) as Array<(client: ComfyApi) => Promise<string>>);
    // The added engine has taken some of them: kill it while it runs one.
    await until(() => t.studio.jobs.history({}).some((j) => j.engine_id !== undefined && j.engine_id !== 'local' && j.engine_id !== null), 'a job on the other engine', 20_000);
    other.kill();
    const ids = await calls;
    pool.destroy();
    expect(new Set(ids).size).toBe(20);
    await until(() => ids.every((id) => t.studio.jobs.get(id)?.status === 'completed'), 'all 20 jobs completed', 30_000);
    const engines = new Set(ids.map((id) => t.studio.jobs.get(id)?.engine_id));
    expect(engines.has('local')).toBe(true);
    // Each id is still the one the library tracked, and the door's history says it completed.
    for (const id of ids) {
      const entry = (await api.getHistory(id)) as { status: { completed: boolean } };
      expect(entry.status.completed).toBe(true);
    }
  }, 120_000);
});

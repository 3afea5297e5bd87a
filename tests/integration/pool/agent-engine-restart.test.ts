/**
 * An agent whose engine crashes and is restarted by it within the main Studio's health interval:
 * the main Studio never sees it offline, but the engine lost the jobs it held. The agent says so
 * over its relay (the first frame of each relayed socket names its engine process); the main
 * Studio requeues those jobs like a failover (`job.requeued`, event `engine.restarted`), and they
 * run to the end instead of being marked stalled.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute, plantModels, SAMPLE_PNG, SHIPPED_MODELS, waitForJob } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { until } from '../../helpers/studio-ws.js';

let main: TestStudio;
let agent: TestStudio;

const json = async <T>(res: Response) => (await res.json()) as T;

beforeAll(async () => {
  agent = await startTestStudio({ startEngine: true, env: { STUDIO_ROLE: 'agent', STANDIN_STEP_MS: '100', STANDIN_NODE_MS: '20' } });
  plantModels(agent.dir, SHIPPED_MODELS);
  // Health checks of the agent far apart: its engine's restart falls between two of them.
  main = await startTestStudio({ startEngine: true, env: { STANDIN_STEP_MS: '50', STANDIN_NODE_MS: '20', ENGINE_POOL_PROBE_MS: '20000' } });
  await Promise.all([agent.studio.engineReady(60_000), main.studio.engineReady(60_000)]);
}, 90_000);

afterAll(async () => {
  await main?.stop();
  await agent?.stop();
});

describe("an agent's engine restarted within the health interval", () => {
  it('has its jobs requeued, not stalled', async () => {
    const added = await main.api('/api/admin/engines', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'GPU box', url: agent.url, key: agent.apiKey }) });
    const { id } = await json<{ id: string }>(added);
    await until(async () => (await json<{ engines: Array<{ id: string; status: string }> }>(await main.api('/api/admin/engines'))).engines.find((e) => e.id === id)?.status === 'online', 'the agent online', 60_000);
    // Only the agent has this workflow's models.
    const job = (await execute(main.api, 'img2vid-wan', { params: { steps: 30 }, image: { data: fs.readFileSync(SAMPLE_PNG), name: 'dog.png' } })).prompt_id;
    await until(async () => (await json<Array<{ prompt_id: string; status: string; engine_id: string | null }>>(await main.api('/api/admin/queue'))).some((j) => j.prompt_id === job && j.status === 'running' && j.engine_id === id), 'the job running on the agent', 30_000);

    const pid = agent.studio.engine.state.pid!;
    process.kill(pid, 'SIGKILL');
    await until(() => agent.studio.engine.state.status === 'running' && agent.studio.engine.state.pid !== pid, "the agent's engine restarted", 30_000);

    const done = await waitForJob(main.api, job, ['completed', 'error', 'stalled'], 60_000);
    expect(done.status).toBe('completed');
    const requeued = await json<Array<{ data: { prompt_id: string; engine_id: string } }>>(await main.api('/api/admin/events?types=job.requeued&limit=10'));
    expect(requeued.map((e) => e.data)).toContainEqual(expect.objectContaining({ prompt_id: job, engine_id: id }));
    const restarted = await json<Array<{ data: { engine_id: string } }>>(await main.api('/api/admin/events?types=engine.restarted&limit=10'));
    expect(restarted.map((e) => e.data)).toEqual([{ engine_id: id }]);
  }, 150_000);
});

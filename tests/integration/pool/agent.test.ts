/**
 * Another Studio running as an agent (`STUDIO_ROLE=agent`) on its own port serves its engine to
 * the main Studio, which adds it by URL and key: a job only the agent's engine can run goes there,
 * its input image is uploaded through the agent, progress arrives over the agent's relayed
 * socket, and the outputs land in the main Studio's job folder. The agent has no UI, and a wrong
 * key leaves it offline in the main Studio's pool.
 *
 * Order matters (one Studio for the file; found with --sequence.shuffle): the job test adds the
 * working agent to the pool and leaves it there, so it runs after the wrong-key test.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute, plantModels, SAMPLE_PNG, SHIPPED_MODELS, waitForJob } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { connectStudioWs, until } from '../../helpers/studio-ws.js';

interface Engine {
  id: string;
  kind: string;
  status: string;
  jobs_done: number;
}

let main: TestStudio;
let agent: TestStudio;

const json = async <T>(res: Response) => (await res.json()) as T;
const engines = async () => (await json<{ engines: Engine[] }>(await main.api('/api/admin/engines'))).engines;
const add = (body: unknown) => main.api('/api/admin/engines', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

beforeAll(async () => {
  agent = await startTestStudio({ startEngine: true, env: { STUDIO_ROLE: 'agent', STANDIN_STEP_MS: '50', STANDIN_NODE_MS: '20' } });
  plantModels(agent.dir, SHIPPED_MODELS);
  main = await startTestStudio({ startEngine: true, env: { STANDIN_STEP_MS: '50', STANDIN_NODE_MS: '20', ENGINE_POOL_PROBE_MS: '200' } });
  plantModels(main.dir, { checkpoints: ['sd_xl_base_1.0.safetensors'] });
  await Promise.all([agent.studio.engineReady(60_000), main.studio.engineReady(60_000)]);
}, 90_000);

afterAll(async () => {
  await main?.stop();
  await agent?.stop();
});

describe('a Studio agent as a remote engine', () => {
  it('serves no UI, and its engine only with its key', async () => {
    // Signed in (the key), the agent still has no page to serve: no UI.
    expect((await agent.api('/')).status).toBe(404);
    expect((await fetch(`${agent.url}/api/agent/engine/system_stats`)).status).toBe(401);
    expect((await agent.api('/api/agent/engine/system_stats')).status).toBe(200);
    const wrong = await json<Engine>(await add({ name: 'Wrong key', url: agent.url, key: 'not-the-key-0000' }));
    expect(wrong.kind).toBe('agent');
    // Its health check is refused: it never comes online, and no job goes there.
    await until(async () => (await engines()).find((e) => e.id === wrong.id)?.status === 'offline', 'the wrong-key agent offline', 30_000);
    expect((await main.api(`/api/admin/engines/${wrong.id}`, { method: 'DELETE' })).status).toBe(200);
  });

  it('runs a job only the agent can run: input uploaded through it, outputs in the main job folder', async () => {
    const res = await add({ name: 'GPU box', url: agent.url, key: agent.apiKey });
    expect(res.status).toBe(201);
    const { id } = await json<Engine>(res);
    await until(async () => (await engines()).find((e) => e.id === id)?.status === 'online', 'the agent online', 60_000);
    const ws = await connectStudioWs(main.url, main.apiKey);
    try {
      const job = await execute(main.api, 'img2vid-wan', { params: { steps: 3 }, image: { data: fs.readFileSync(SAMPLE_PNG), name: 'dog.png' } });
      const done = await waitForJob(main.api, job.prompt_id, ['completed', 'error', 'stalled'], 60_000);
      expect(done.status).toBe('completed');
      // Progress came over the agent's relayed engine socket.
      expect(ws.ofType('job.progress').some((f) => f.data.prompt_id === job.prompt_id)).toBe(true);
      // The input went to the agent's engine; the outputs came back to the main Studio's job folder.
      const agentInputs = fs.readdirSync(path.join(agent.dir, 'assets', 'input'));
      expect(agentInputs.some((f) => f.startsWith('dog'))).toBe(true);
      const folder = path.join(main.dir, 'assets', 'output', String(done.output_dir));
      expect(fs.readdirSync(folder, { recursive: true }).map(String).some((f) => /\.(mp4|webm|webp|png|gif)$/.test(f))).toBe(true);
      expect((await engines()).find((e) => e.id === id)?.jobs_done).toBe(1);
    } finally {
      await ws.close();
    }
  }, 150_000);
});

/**
 * The engine pool under faults, as real processes: a main Studio (its own stand-in engine), a
 * stand-in by URL and an agent Studio (its own stand-in), a batch of jobs spread over the three,
 * and faults by real signals. The witness is each engine's own history, polled throughout (an
 * engine that dies or restarts forgets its history, so every success seen is kept). Used by the
 * short fault test (`npm test`) and the long one (`npm run test:faults`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { executeRaw, plantModels } from './runner.js';
import { freePort } from './ports.js';
import { isAlive } from './process-state.js';
import { startStandin, type StandinProcess } from './standin-process.js';
import { startStudioProcess, type StudioProcess } from './studio-process.js';
import { TEST_API_KEY } from './studio.js';
import { until } from './studio-ws.js';

const MODELS = { checkpoints: ['sd_xl_base_1.0.safetensors'] };

interface Job {
  prompt_id: string;
  status: string;
  output_dir: string | null;
  retry_of?: string | null;
}

export interface PoolFaults {
  main: StudioProcess;
  agent: StudioProcess;
  remote: StandinProcess;
  /** The main Studio's data folder. */
  mainDir: string;
  /** The user's jobs, as submitted. */
  submitted: string[];
  /** Submit `count` jobs (a few steps each). */
  submit(count: number, steps: number): Promise<void>;
  /** Studio records of every job (submitted ones and their retries). */
  records(): Promise<Job[]>;
  /** Resolves once `n` submitted jobs (or their retries) have completed. */
  completed(n: number, ms?: number): Promise<void>;
  /** SIGKILL the main Studio and start it again at once on the same data folder. */
  killMainAndRestart(): Promise<void>;
  /** SIGTERM (graceful) the main Studio and start it again. */
  restartMain(): Promise<void>;
  /** SIGKILL the agent's engine (the agent restarts it). */
  killAgentEngine(): Promise<void>;
  /** Freeze the engine by URL (SIGSTOP) for `ms`, then let it run again. */
  freezeRemote(ms: number): Promise<void>;
  /** The event log's lines about these jobs and their retries (for a failure message). */
  eventsOf(jobs: readonly string[]): Promise<string[]>;
  /** Read every engine's history now (the poll runs every 150 ms). */
  witness(): Promise<void>;
  /** Each engine's successes seen so far: prompt id → the engines (by name) whose history had it as success. */
  successes(): Map<string, string[]>;
  /** Stop polling and every process; remove the folders. */
  close(): Promise<void>;
}

/** Start the three engines and the two Studios; the agent is added to the main Studio's pool, and the stand-in by URL. */
export async function startPoolFaults(options: { stepMs: number }): Promise<PoolFaults> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-pool-faults-'));
  const mainDir = path.join(root, 'main');
  const agentDir = path.join(root, 'agent');
  plantModels(mainDir, MODELS);
  plantModels(agentDir, MODELS);
  const [mainEnginePort, agentEnginePort] = [await freePort(), await freePort()];
  const common = { STANDIN_STEP_MS: String(options.stepMs), STANDIN_NODE_MS: '20' };
  const mainEnv = { ...common, STUDIO_DIR: mainDir, ENGINE_PORT: String(mainEnginePort), ENGINE_POOL_PROBE_MS: '500' };
  const remote = await startStandin({ stepMs: options.stepMs, models: MODELS });
  const agent = await startStudioProcess({ ...common, STUDIO_DIR: agentDir, ENGINE_PORT: String(agentEnginePort), STUDIO_ROLE: 'agent' });
  let main = await startStudioProcess(mainEnv);
  const api = (p: string, init?: RequestInit) => main.api(p, init);
  const json = async <T>(res: Response) => (await res.json()) as T;
  const add = (body: unknown) => api('/api/admin/engines', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  await add({ name: 'Box by URL', url: remote.url });
  await add({ name: 'Agent', url: agent.url, key: TEST_API_KEY });
  await until(async () => {
    const engines = (await json<{ engines: Array<{ status: string }> }>(await api('/api/admin/engines'))).engines;
    return engines.length === 3 && engines.every((e) => e.status === 'online');
  }, 'the three engines online', 90_000);

  // The witness: every success each engine's history has shown.
  const seen = new Map<string, Set<string>>();
  /** What the run did and saw, with times (for a failure message). */
  const notes: string[] = [];
  const witnesses: Array<{ name: string; url: string }> = [
    { name: 'local', url: `http://127.0.0.1:${mainEnginePort}` },
    { name: 'agent', url: `http://127.0.0.1:${agentEnginePort}` },
    { name: 'remote', url: remote.url },
  ];
  const poll = async () => {
    await Promise.all(
      witnesses.map(async (w) => {
        const history = await fetch(`${w.url}/history`, { signal: AbortSignal.timeout(1_000) })
          .then((r) => r.json() as Promise<Record<string, { status?: { status_str?: string } }>>)
          .catch(() => ({}) as Record<string, { status?: { status_str?: string } }>);
        for (const [id, entry] of Object.entries(history)) {
          if (entry.status?.status_str !== 'success') continue;
          const set = seen.get(id) ?? new Set<string>();
          if (!set.has(w.name)) notes.push(`${new Date().toISOString()} witness: ${id} success on ${w.name}`);
          set.add(w.name);
          seen.set(id, set);
        }
      }),
    );
  };
  let polling = true;
  const loop = (async () => {
    while (polling) {
      await poll();
      await new Promise((r) => setTimeout(r, 150));
    }
  })();

  const submitted: string[] = [];
  const records = async () => (await json<Job[]>(await api('/api/admin/history?limit=10000'))).filter((j) => j.prompt_id);
  /** The submitted job a record stands for (following retry_of back). */
  const rootOf = (byId: Map<string, Job>, id: string) => {
    let job = byId.get(id);
    while (job?.retry_of && byId.has(job.retry_of)) job = byId.get(job.retry_of);
    return job?.prompt_id ?? id;
  };
  const faults: PoolFaults = {
    get main() {
      return main;
    },
    agent,
    remote,
    mainDir,
    submitted,
    async submit(count, steps) {
      for (let i = 0; i < count; i++) {
        const res = await executeRaw(api, 'txt2img-sdxl', { params: { positive: `fault job ${submitted.length}`, steps } });
        const body = await json<{ prompt_id?: string; detail?: unknown }>(res);
        if (res.status !== 200 || !body.prompt_id) throw new Error(`execute: HTTP ${res.status} ${JSON.stringify(body.detail)}`);
        submitted.push(body.prompt_id);
      }
    },
    records,
    async completed(n, ms = 120_000) {
      await until(async () => {
        const all = await records();
        const byId = new Map(all.map((j) => [j.prompt_id, j]));
        return new Set(all.filter((j) => j.status === 'completed').map((j) => rootOf(byId, j.prompt_id))).size >= n;
      }, `${n} jobs completed`, ms);
    },
    async killMainAndRestart() {
      await main.kill();
      notes.push(`${new Date().toISOString()} fault: the main Studio killed`);
      // Its engine, an orphan now, may finish a job while no Studio watches, and the new Studio ends
      // it as it starts (its history goes with it): watch it closely until then.
      let starting = true;
      const close = (async () => {
        while (starting) {
          await poll();
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      main = await startStudioProcess(mainEnv).finally(() => (starting = false));
      await close;
    },
    async restartMain() {
      await main.stop();
      main = await startStudioProcess(mainEnv);
    },
    async killAgentEngine() {
      const record = path.join(agentDir, 'engine', `engine-child-${agentEnginePort}.json`);
      const { pid } = JSON.parse(fs.readFileSync(record, 'utf8')) as { pid: number };
      // Mid-job, not in the instant a job ends: an engine killed between finishing a job and telling
      // anyone takes the news with it (its history dies with it), and no one can know the job ran.
      await until(async () => {
        const q = await fetch(`http://127.0.0.1:${agentEnginePort}/queue`).then((r) => r.json() as Promise<{ queue_running: unknown[] }>);
        return q.queue_running.length > 0;
      }, 'a job running on the agent engine', 30_000);
      await new Promise((r) => setTimeout(r, options.stepMs));
      await poll();
      process.kill(pid, 'SIGKILL');
      notes.push(`${new Date().toISOString()} fault: the agent's engine killed`);
      await until(() => !isAlive(pid), 'the agent engine gone');
    },
    async freezeRemote(ms) {
      // Mid-sampling: an engine frozen in the last milliseconds of a job finishes it the moment it
      // runs again, before any cancel is read (Studio then reports it, job.ran_twice).
      const engines = (await json<{ engines: Array<{ id: string; name: string }> }>(await api('/api/admin/engines'))).engines;
      const remoteId = engines.find((e) => e.name === 'Box by URL')?.id;
      await until(async () => {
        const queue = await json<Array<{ engine_id: string | null; status: string; progress?: { step: number; total_steps: number } }>>(await api('/api/admin/queue'));
        return queue.some((j) => j.engine_id === remoteId && j.status === 'running' && (j.progress?.step ?? 0) >= 1 && (j.progress?.step ?? 0) <= (j.progress?.total_steps ?? 0) - 3);
      }, 'a job mid-sampling on the engine by URL', 60_000);
      remote.child.kill('SIGSTOP');
      notes.push(`${new Date().toISOString()} fault: the engine by URL frozen`);
      await new Promise((r) => setTimeout(r, ms));
      remote.child.kill('SIGCONT');
      notes.push(`${new Date().toISOString()} fault: the engine by URL resumed`);
    },
    witness: poll,
    async eventsOf(jobs) {
      const all = await records();
      const ids = new Set(all.filter((j) => jobs.includes(j.prompt_id) || (j.retry_of && jobs.includes(j.retry_of))).map((j) => j.prompt_id));
      const events = await json<Array<{ time?: string; type: string; message: string; data: Record<string, unknown> }>>(await api('/api/admin/events?limit=1000'));
      const lines = events.filter((e) => [...ids].some((id) => JSON.stringify(e.data).includes(id))).map((e) => `${e.time ?? ''} ${e.type}: ${e.message} ${JSON.stringify(e.data).slice(0, 300)}`);
      return [...lines, ...notes.filter((n) => n.includes('fault:') || [...ids].some((id) => n.includes(id)))];
    },
    successes() {
      return new Map([...seen].map(([id, set]) => [id, [...set]]));
    },
    async close() {
      polling = false;
      await loop;
      remote.child.kill('SIGCONT');
      await main.stop().catch(() => undefined);
      await agent.stop().catch(() => undefined);
      await remote.stop().catch(() => undefined);
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
  return faults;
}

/** What the run left: per submitted job, its completed records and the engines whose history had a success for it. */
export async function verdict(faults: PoolFaults): Promise<{
  byJob: Array<{ job: string; completed: number; active: number; successes: string[]; outputs: boolean }>;
}> {
  await faults.witness();
  const all = await faults.records();
  const byId = new Map(all.map((j) => [j.prompt_id, j]));
  const rootOf = (id: string) => {
    let job = byId.get(id);
    while (job?.retry_of && byId.has(job.retry_of)) job = byId.get(job.retry_of);
    return job?.prompt_id ?? id;
  };
  const active = await (await faults.main.api('/api/admin/queue')).json() as Array<{ prompt_id: string }>;
  const successes = faults.successes();
  const images = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true }).map(String).filter((f) => /\.(png|webp|jpg)$/.test(f)) : []);
  return {
    byJob: faults.submitted.map((job) => {
      const chain = all.filter((j) => rootOf(j.prompt_id) === job);
      const done = chain.filter((j) => j.status === 'completed');
      return {
        job,
        completed: done.length,
        active: chain.filter((j) => j.status === 'queued' || j.status === 'running').length + active.filter((j) => rootOf(j.prompt_id) === job).length,
        successes: chain.flatMap((j) => successes.get(j.prompt_id) ?? []),
        outputs: done.every((j) => j.output_dir !== null && images(path.join(faults.mainDir, 'assets', 'output', j.output_dir)).length > 0),
      };
    }),
  };
}

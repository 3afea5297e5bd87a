/**
 * Restarts lose nothing: Studio runs as a child process against a stand-in engine this test owns
 * (external engine mode), is SIGKILLed mid-job and started again on the same data directory.
 * Reconciliation then follows the job to its end, or marks it `stalled` when the engine lost it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startStandinEngine, type StandinEngine } from '../../../server/standin/standin.server.js';
import type { JobRecord } from '../../../server/contracts/jobs.contract.js';
import { stallMessage } from '../../../server/jobs/job-transitions.js';
import { execute, uploadSample, waitForJob } from '../../helpers/runner.js';
import { startStudioProcess, type StudioProcess } from '../../helpers/studio-process.js';
import { startTestStudio, TEST_API_KEY } from '../../helpers/studio.js';
import { connectStudioWs, until } from '../../helpers/studio-ws.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

interface Setup {
  dir: string;
  engine: StandinEngine;
  env: Record<string, string>;
}

async function setup(stepMs: number, beforeNode?: () => Promise<void>): Promise<Setup> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-restart-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const engine = await startEngine(dir, 0, stepMs, beforeNode);
  return { dir, engine, env: { STUDIO_DIR: dir, ENGINE_MODE: 'external', ENGINE_PORT: String(engine.port) } };
}

async function startEngine(dir: string, port: number, stepMs: number, beforeNode?: () => Promise<void>): Promise<StandinEngine> {
  const engine = await startStandinEngine({
    port,
    inputDir: path.join(dir, 'assets', 'input'),
    outputDir: path.join(dir, 'assets', 'output'),
    tempDir: path.join(dir, 'engine', 'temp'),
    stepMs,
    // image-filter's nodes report no steps (as on the real engine); each takes 10 steps' time, so
    // a job outlives a Studio restart even on a busy machine.
    nodeMs: stepMs * 10,
    beforeNode,
  });
  cleanups.push(() => engine.close());
  return engine;
}

async function studio(env: Record<string, string>): Promise<StudioProcess> {
  const proc = await startStudioProcess(env);
  cleanups.push(() => proc.stop());
  return proc;
}

async function runningJob(proc: StudioProcess): Promise<string> {
  const image = await uploadSample(proc.api, 'restart.png');
  const { prompt_id } = await execute(proc.api, 'image-filter', { params: { _existing_input_image: image } });
  await until(async () => {
    const status = (await (await proc.api(`/api/run/status/${prompt_id}`)).json()) as { status: string; nodes_done?: number };
    return status.status === 'running' && (status.nodes_done ?? 0) > 0;
  }, 'the job running');
  return prompt_id;
}

describe('Studio killed mid-job and restarted', () => {
  it('follows the job again and records it completed with its output', async () => {
    // The engine holds the job's third node until the new Studio listens: the job outlives the
    // restart however long it takes, and what follows is live progress.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started = 0;
    const { dir, env } = await setup(100, async () => {
      if (++started === 3) await held;
    });
    const first = await studio(env);
    const promptId = await runningJob(first);
    await first.kill();

    const second = await studio(env);
    const ws = await connectStudioWs(second.url, TEST_API_KEY);
    cleanups.push(() => ws.close());
    const queue = (await (await second.api('/api/admin/queue')).json()) as JobRecord[];
    const queued = queue.find((j) => j.prompt_id === promptId);
    // Live progress, or (before the engine was checked) the stored status.
    expect(queued?.status).toBe('running');
    expect(queued?.progress?.status).toBe('running');
    await until(() => started === 3 || undefined, 'the engine holding the third node');
    release();
    // Live progress resumes: the engine still sends the prompt's events to Studio's (kept) client id.
    // The frame that proves it is one past where the job stood when the new Studio came up; the
    // engine held the third of four nodes until now, so that frame is of the job still running.
    const doneAtRestart = queued?.progress?.nodes_done ?? 0;
    const live = await until(
      () => ws.ofType('job.progress').find((f) => f.data.prompt_id === promptId && (f.data.progress as { nodes_done: number }).nodes_done > doneAtRestart),
      'live progress after the restart',
    );
    expect((live.data.progress as { status: string }).status).toBe('running');
    const job = (await waitForJob(second.api, promptId, ['completed', 'error', 'stalled'], 45_000)) as unknown as JobRecord;
    expect(job.status).toBe('completed');
    expect(job.output?.filename).toBe('filtered_00001_.png');
    const folder = path.join(dir, 'assets', 'output', job.output_dir!);
    expect(fs.readdirSync(path.join(folder, 'final'))).toEqual(['filtered_00001_.png']);
    expect(fs.existsSync(path.join(folder, '.incomplete'))).toBe(false);
    const history = (await (await second.api('/api/admin/history')).json()) as JobRecord[];
    expect(history.find((j) => j.prompt_id === promptId)?.status).toBe('completed');
    const events = (await (await second.api('/api/admin/events?types=system.startup,job.completed')).json()) as { type: string; data: Record<string, unknown> }[];
    const startup = events.find((e) => e.type === 'system.startup');
    expect(startup?.data).toMatchObject({ followed: [promptId], finished: [], stalled: [] });
    expect(events.some((e) => e.type === 'job.completed' && e.data.prompt_id === promptId)).toBe(true);
  }, 90_000);

  it('records a job the engine finished while Studio was down as completed', async () => {
    const { env, dir } = await setup(100);
    const first = await studio(env);
    const promptId = await runningJob(first);
    await first.kill();
    // Let the engine finish alone: its history now holds the job.
    await until(() => fs.readdirSync(path.join(dir, 'assets', 'output')).some((f) => fs.existsSync(path.join(dir, 'assets', 'output', f, 'final', 'filtered_00001_.png'))), 'the file');
    await new Promise((r) => setTimeout(r, 300));

    const second = await studio(env);
    const job = (await waitForJob(second.api, promptId, ['completed', 'error', 'stalled'])) as unknown as JobRecord;
    expect(job.status).toBe('completed');
    expect(job.output?.subfolder).toBe(`${job.output_dir}/final`);
    const events = (await (await second.api('/api/admin/events?types=system.startup')).json()) as { data: Record<string, unknown> }[];
    expect(events.at(-1)?.data).toMatchObject({ followed: [], finished: [promptId], stalled: [] });
  });

  it('marks a job the engine lost as stalled, with a system.startup event', async () => {
    const { dir, engine, env } = await setup(400);
    const first = await studio(env);
    const promptId = await runningJob(first);
    await first.kill();
    // The engine restarts too: its queue and history are in memory, so the job is gone.
    await engine.close();
    await startEngine(dir, engine.port, 400);

    const second = await studio(env);
    const job = (await waitForJob(second.api, promptId, ['completed', 'error', 'stalled'])) as unknown as JobRecord;
    expect(job.status).toBe('stalled');
    expect(job.error).toMatch(/lost/);
    expect(fs.existsSync(path.join(dir, 'assets', 'output', job.output_dir!, '.incomplete'))).toBe(false);
    const status = (await (await second.api(`/api/run/status/${promptId}`)).json()) as Record<string, unknown>;
    expect(status).toEqual({ status: 'error', prompt_id: promptId, error: job.error });
    const events = (await (await second.api('/api/admin/events?types=system.startup')).json()) as { severity: string; data: Record<string, unknown> }[];
    expect(events.at(-1)).toMatchObject({ severity: 'warning', data: { stalled: [promptId] } });
    const queue = (await (await second.api('/api/admin/queue')).json()) as JobRecord[];
    expect(queue.map((j) => j.prompt_id)).not.toContain(promptId);
  });
});

describe('the engine restarting under a running Studio', () => {
  it('marks the lost job stalled and tells WebSocket clients', async () => {
    const t = await startTestStudio({ startEngine: true, env: { STANDIN_STEP_MS: '300', STANDIN_NODE_MS: '1500' } });
    cleanups.push(() => t.stop());
    await t.studio.engineReady();
    const ws = await connectStudioWs(t.url, t.apiKey);
    cleanups.push(() => ws.close());
    const promptId = await runningJob({ api: t.api } as StudioProcess);
    await t.studio.engine.restart();
    const frame = await until(() => ws.ofType('job.stalled').find((f) => f.data.prompt_id === promptId), 'job.stalled frame');
    expect(frame.data).toMatchObject({ status: 'stalled', prompt_id: promptId });
    expect(t.studio.jobs.get(promptId)?.status).toBe('stalled');
    expect(t.studio.monitor.isTracked(promptId)).toBe(false);
    // The engine runs again: a new job goes through.
    const image = await uploadSample(t.api);
    const { prompt_id } = await execute(t.api, 'image-filter', { params: { _existing_input_image: image } });
    expect((await waitForJob(t.api, prompt_id, ['completed', 'error', 'stalled'])).status).toBe('completed');
  });
});

describe('an external engine restarting faster than its health probe', () => {
  it('marks the job it lost stalled once the engine socket reconnects', async () => {
    const { dir, engine, env } = await setup(400);
    // Only the socket may notice: the health probe and the silent-job poll are set out of reach,
    // so the reconnect check is the one mechanism left that can settle the job.
    const outOfReach = 60 * 60_000;
    const t = await startTestStudio({ dir, startEngine: true, env, engineProbeMs: outOfReach, jobPollMs: outOfReach });
    cleanups.push(() => t.stop());
    await t.studio.engineReady();
    const ws = await connectStudioWs(t.url, t.apiKey);
    cleanups.push(() => ws.close());
    const promptId = await runningJob({ api: t.api } as StudioProcess);
    await engine.close();
    await startEngine(dir, engine.port, 400);

    const frame = await until(() => ws.ofType('job.stalled').find((f) => f.data.prompt_id === promptId), 'job.stalled frame', 20_000);
    expect(frame.data).toMatchObject({ status: 'stalled', prompt_id: promptId });
    const job = t.studio.jobs.get(promptId)!;
    expect(job.status).toBe('stalled');
    expect(job.error).toBe(stallMessage({ cause: 'lost' }));
    expect(fs.existsSync(path.join(dir, 'assets', 'output', job.output_dir!, '.incomplete'))).toBe(false);
    const events = (await (await t.api('/api/admin/events?types=job.stalled,system.startup')).json()) as { type: string; data: Record<string, unknown> }[];
    expect(events.filter((e) => e.type === 'job.stalled' && e.data.prompt_id === promptId)).toHaveLength(1);
    // Reconciliation (after a health probe saw the engine down) did not run: its event names no stalled job.
    expect(events.filter((e) => e.type === 'system.startup' && (e.data.stalled as string[]).includes(promptId))).toEqual([]);
    expect(t.studio.engineModule.process.state.status).toBe('running');
    expect(t.studio.monitor.isTracked(promptId)).toBe(false);
  });
});

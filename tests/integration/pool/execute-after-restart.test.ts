/**
 * Right after a restart this computer's engine is still starting for a second or more while
 * `/api/health` already answers and an engine by URL is online. An `execute` with an input image
 * in that window must not fail ("Upload failed: engine unreachable", 500): the input is kept by
 * Studio and the engine that answers takes the job (or, with no other engine, the request waits
 * for this computer's engine, bounded).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { executeRaw, SAMPLE_PNG, waitForJob } from '../../helpers/runner.js';
import { freePort } from '../../helpers/ports.js';
import { startStandin, type StandinProcess } from '../../helpers/standin-process.js';
import { startStudioProcess, type StudioProcess } from '../../helpers/studio-process.js';
import { until } from '../../helpers/studio-ws.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-execute-restart-'));
const procs: StudioProcess[] = [];
let remote: StandinProcess | undefined;

afterAll(async () => {
  for (const p of procs) await p.stop();
  await remote?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const json = async <T>(res: Response) => (await res.json()) as T;
const engines = async (p: StudioProcess) => (await json<{ engines: Array<{ id: string; status: string }> }>(await p.api('/api/admin/engines'))).engines;

describe('execute just after a restart', () => {
  it('never answers 500 while this computer\'s engine starts and another engine answers', async () => {
    remote = await startStandin({ stepMs: 20 });
    const env = { STUDIO_DIR: dir, ENGINE_PORT: String(await freePort()), STANDIN_STEP_MS: '20', ENGINE_POOL_PROBE_MS: '200' };
    const first = await startStudioProcess(env);
    procs.push(first);
    const { id } = await json<{ id: string }>(await first.api('/api/admin/engines', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'Box', url: remote.url }) }));
    await until(async () => (await engines(first)).every((e) => e.status === 'online'), 'both engines online', 60_000);
    await first.stop();

    const second = await startStudioProcess(env);
    procs.push(second);
    // The engine by URL answers first (one probe); this computer's engine is still starting.
    await until(async () => (await engines(second)).find((e) => e.id === id)?.status === 'online', 'the engine by URL online', 30_000);
    const local = (await engines(second))[0]!.status;
    const res = await executeRaw(second.api, 'image-filter', { image: { data: fs.readFileSync(SAMPLE_PNG), name: 'after-restart.png' } });
    const body = await json<{ prompt_id?: string; detail?: unknown }>(res);
    expect({ status: res.status, local, detail: body.detail }).toMatchObject({ status: 200 });
    expect((await waitForJob(second.api, body.prompt_id!, ['completed', 'error', 'stalled'], 60_000)).status).toBe('completed');
  }, 120_000);
});

/**
 * The engine crashes (SIGKILL) with three jobs queued: one running and one prefetched on the
 * engine, the third still waiting in Studio's queue. The restarted engine knows neither of its
 * two, so both stall, each with its own `job.stalled` event and the same wording (whoever noticed
 * first: the engine watcher after the socket reconnect, or reconciliation once the engine is up),
 * and the check summary counts each job once. The third never reached the dead engine: it is
 * handed to the restarted one and completes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startStandinEngine, type StandinEngine } from '../../../server/standin/standin.server.js';
import { execute, uploadSample, waitForJob } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { connectStudioWs, until, type StudioWsClient } from '../../helpers/studio-ws.js';

interface LoggedEvent {
  type: string;
  message: string;
  timestamp: string;
  data: Record<string, unknown>;
}

let t: TestStudio | undefined;
let ws: StudioWsClient | undefined;
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  await ws?.close();
  await t?.stop();
  ws = undefined;
  t = undefined;
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function engineAt(dir: string, port: number): Promise<StandinEngine> {
  const engine = await startStandinEngine({
    port,
    inputDir: path.join(dir, 'assets', 'input'),
    outputDir: path.join(dir, 'assets', 'output'),
    tempDir: path.join(dir, 'engine', 'temp'),
    stepMs: 300,
    nodeMs: 3000,
  });
  cleanups.push(() => engine.close());
  return engine;
}

describe('an engine crash with three jobs on it', () => {
  it('stalls each job with its own job.stalled event, one wording, counted once', async () => {
    // Nodes without steps take 3 s each: the first job is still running when the engine dies.
    t = await startTestStudio({ startEngine: true, env: { STANDIN_STEP_MS: '300', STANDIN_NODE_MS: '3000' } });
    await t.studio.engineReady();
    ws = await connectStudioWs(t.url, t.apiKey);
    const image = await uploadSample(t.api, 'crash.png');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await execute(t.api, 'image-filter', { params: { _existing_input_image: image } })).prompt_id);
    await waitForJob(t.api, ids[0]!, ['running']);
    const pid = t.studio.engine.state.pid;
    expect(pid).not.toBeNull();
    const crashedAt = new Date().toISOString();
    process.kill(pid!, 'SIGKILL');

    const waited = ids.pop()!;
    for (const id of ids) expect((await waitForJob(t.api, id, ['stalled', 'completed', 'error'], 60_000)).status).toBe('stalled');
    expect((await waitForJob(t.api, waited, ['stalled', 'completed', 'error'], 60_000)).status).toBe('completed');
    // Every stall is announced on the WebSocket as it is written: both frames have been sent.
    await until(() => ids.every((id) => ws!.ofType('job.stalled').some((f) => f.data.prompt_id === id)), 'job.stalled frames');
    const events = (await (await t.api('/api/admin/events?types=job.stalled,system.startup&limit=1000')).json()) as LoggedEvent[];
    const stalledEvents = events.filter((e) => e.type === 'job.stalled');
    for (const id of ids) expect(stalledEvents.filter((e) => e.data.prompt_id === id)).toHaveLength(1);
    const records = ids.map((id) => t!.studio.jobs.get(id)!);
    expect(new Set(records.map((r) => r.error)).size).toBe(1);
    expect(new Set(stalledEvents.map((e) => e.message))).toEqual(new Set([`Job stalled: ${records[0]!.error}`]));
    for (const id of ids) expect(ws.ofType('job.stalled').filter((f) => f.data.prompt_id === id)).toHaveLength(1);

    // The check after the crash: no job counted twice, whether in one summary or across two.
    const summaries = events.filter((e) => e.type === 'system.startup' && new Date(e.timestamp).toISOString() >= crashedAt);
    const counted = summaries.flatMap((e) => [...(e.data.followed as string[]), ...(e.data.finished as string[]), ...(e.data.stalled as string[])]);
    expect(counted.length).toBe(new Set(counted).size);
    for (const summary of summaries) expect(summary.message).toMatch(/^Checked \d+ unfinished job/);
  }, 120_000);

  it('after Studio and the engine both restarted, reconciliation gives each lost job its own job.stalled event', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-crash-'));
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const engine = await engineAt(dir, 0);
    const env = { ENGINE_MODE: 'external', ENGINE_PORT: String(engine.port) };
    const first = await startTestStudio({ dir, startEngine: true, env });
    await first.studio.engineReady();
    const image = await uploadSample(first.api, 'crash.png');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await execute(first.api, 'image-filter', { params: { _existing_input_image: image } })).prompt_id);
    await waitForJob(first.api, ids[0]!, ['running']);
    await first.stop();
    // The engine's queue and history live in memory: restarted, it knows none of the three.
    await engine.close();
    await engineAt(dir, engine.port);

    t = await startTestStudio({ dir, startEngine: true, env });
    for (const id of ids) expect((await waitForJob(t.api, id, ['stalled', 'completed', 'error'], 30_000)).status).toBe('stalled');
    const events = (await (await t.api('/api/admin/events?types=job.stalled,system.startup&limit=1000')).json()) as LoggedEvent[];
    for (const id of ids) expect(events.filter((e) => e.type === 'job.stalled' && e.data.prompt_id === id)).toHaveLength(1);
    // The third never left Studio's queue: stalled at boot by the restart rule, in a summary of its own.
    const [onEngine, waited] = [ids.slice(0, 2), ids[2]!];
    expect(t.studio.jobs.get(waited)!.error).toMatch(/^Studio restarted while this job waited in its queue/);
    const summaries = events.filter((e) => e.type === 'system.startup');
    expect(summaries.find((e) => (e.data.stalled as string[]).includes(waited) && !('followed' in e.data))).toBeDefined();
    const summary = summaries.at(-1)!;
    expect(summary.data).toEqual({ followed: [], finished: [], stalled: onEngine });
    expect(summary.message).toBe('Checked 2 unfinished job(s) with the engine: 0 still running, 0 finished, 2 stalled');
  }, 120_000);
});

/**
 * Reconciliation at boot when the engine does not answer it cleanly: several jobs Studio left
 * running that the engine no longer knows, checked through a proxy that fails some of the engine's
 * answers. A history read failing half-way does not hold up the other jobs, and the one it could
 * not read is checked again; a queue read failing (the engine unreachable for the check) is
 * retried too, instead of leaving every job `running` until the engine next goes down and up; an
 * engine not there at all at boot leaves the jobs as they are until it answers.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startStandinEngine } from '../../../server/standin/standin.server.js';
import { stallMessage } from '../../../server/jobs/job-transitions.js';
import { jobFixtures } from '../../helpers/job-fixtures.js';
import { startHostileEngine, type Tamper } from '../../helpers/hostile-engine.js';
import { freePort } from '../../helpers/ports.js';
import { jobRecord } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { until } from '../../helpers/studio-ws.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

const IDS = ['left-1', 'left-2', 'left-3'];

/** A data directory holding three jobs a previous Studio left running. */
async function leftRunning(): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-reconcile-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const before = await startTestStudio({ dir });
  for (const [i, id] of IDS.entries()) jobFixtures(before.studio).insert(jobRecord({ prompt_id: id, status: 'running', workflow_id: 'image-filter', started_at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString() }));
  await before.stop();
  return dir;
}

/** A stand-in engine on `port` (0: any) that knows none of those jobs. */
async function engineFor(dir: string, port = 0) {
  const engine = await startStandinEngine({ port, inputDir: path.join(dir, 'assets', 'input'), outputDir: path.join(dir, 'assets', 'output'), tempDir: path.join(dir, 'engine', 'temp'), stepMs: 10 });
  cleanups.push(() => engine.close());
  return engine;
}

/** Three jobs left running, and an engine (behind a proxy) that knows none of them. */
async function setup(tamper: Tamper): Promise<TestStudio> {
  const dir = await leftRunning();
  const engine = await engineFor(dir);
  const proxy = await startHostileEngine(engine.port, tamper);
  cleanups.push(() => proxy.close());
  const t = await startTestStudio({ dir, startEngine: true, env: { ENGINE_MODE: 'external', ENGINE_PORT: String(proxy.port) } });
  cleanups.push(() => t.stop());
  return t;
}

const startupEvents = async (t: TestStudio) =>
  ((await (await t.api('/api/admin/events?types=system.startup')).json()) as Array<{ data: { followed: string[]; finished: string[]; stalled: string[] } }>).map((e) => e.data);

/** Fail the first `times` requests matching `pattern` with `status`. */
function failing(pattern: RegExp, status: number, times: number): Tamper & { failed: () => number } {
  let failed = 0;
  return {
    http: ({ method, url }) => {
      if (method !== 'GET' || !pattern.test(url) || failed >= times) return null;
      failed += 1;
      return { status, body: JSON.stringify({ error: 'injected failure' }) };
    },
    failed: () => failed,
  };
}

describe('reconciliation at boot, with the engine failing some answers', () => {
  it('settles the jobs it can when one history read fails, and checks that one again', async () => {
    const tamper = failing(/^\/history\/left-2$/, 500, 1);
    const t = await setup(tamper);
    await until(() => t.studio.jobs.get('left-1')?.status === 'stalled' && t.studio.jobs.get('left-3')?.status === 'stalled', 'the readable jobs stalled');
    expect(tamper.failed()).toBe(1);
    // The one whose history failed is settled by the retry, counted once, in its own summary.
    await until(() => t.studio.jobs.get('left-2')?.status === 'stalled', 'the retried job stalled', 30_000);
    for (const id of IDS) expect(t.studio.jobs.get(id)?.error).toBe(stallMessage({ cause: 'lost' }));
    const summaries = await startupEvents(t);
    expect(summaries).toEqual([
      { followed: [], finished: [], stalled: ['left-1', 'left-3'] },
      { followed: [], finished: [], stalled: ['left-2'] },
    ]);
  });

  it('checks again when the engine answers its health probe but not the queue read', async () => {
    const tamper = failing(/^\/queue$/, 503, 2);
    const t = await setup(tamper);
    await until(() => IDS.every((id) => t.studio.jobs.get(id)?.status === 'stalled'), 'every job stalled', 30_000);
    expect(tamper.failed()).toBe(2);
    expect(await startupEvents(t)).toEqual([{ followed: [], finished: [], stalled: IDS }]);
  }, 60_000);

  it('leaves every job as it is while the engine cannot be reached at all, and settles them once it answers', async () => {
    const dir = await leftRunning();
    const port = await freePort();
    const t = await startTestStudio({ dir, startEngine: true, engineProbeMs: 200, env: { ENGINE_MODE: 'external', ENGINE_PORT: String(port) } });
    cleanups.push(() => t.stop());
    // Studio has asked and found nobody there: nothing was decided about the jobs without the engine.
    await until(() => t.studio.engineModule.process.state.status === 'unreachable', 'the engine seen unreachable');
    for (const id of IDS) expect(t.studio.jobs.get(id)?.status).toBe('running');
    expect(await startupEvents(t)).toEqual([]);

    await engineFor(dir, port);
    await until(() => IDS.every((id) => t.studio.jobs.get(id)?.status === 'stalled'), 'every job stalled once the engine answered', 30_000);
    for (const id of IDS) expect(t.studio.jobs.get(id)?.error).toBe(stallMessage({ cause: 'lost' }));
    expect(await startupEvents(t)).toEqual([{ followed: [], finished: [], stalled: IDS }]);
  }, 60_000);
});

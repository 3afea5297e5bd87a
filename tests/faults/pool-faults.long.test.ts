/**
 * The engine pool under faults, long form (`npm run test:faults`, not part of `npm test`): thirty
 * jobs over three engines (this computer's stand-in, one by URL, an agent); the main Studio
 * SIGKILLed mid-run and started again at once; the agent's engine SIGKILLed; the engine by URL
 * frozen 40 s mid-job and resumed; the main Studio restarted gracefully. Every job ends completed
 * exactly once across all engine histories (its retry after a restart counts as the job), with its
 * outputs, and nothing is left queued or running a minute after the last fault.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startPoolFaults, verdict, type PoolFaults } from '../helpers/pool-faults.js';

let faults: PoolFaults | undefined;
afterAll(async () => faults?.close());

describe('the engine pool under faults (long)', () => {
  it('ends every job completed exactly once, with its outputs', async () => {
    faults = await startPoolFaults({ stepMs: 200 });
    await faults.submit(30, 8);
    await faults.completed(4);
    await faults.killMainAndRestart();
    await faults.completed(10);
    await faults.killAgentEngine();
    await faults.freezeRemote(40_000);
    await faults.completed(18);
    await faults.restartMain();
    // The last fault: everything settles within a minute plus the work left.
    await faults.completed(30, 120_000);
    const { byJob } = await verdict(faults);
    const wrong = byJob.filter((j) => j.completed !== 1 || j.active !== 0 || !j.outputs || j.successes.length !== 1);
    const log = wrong.length ? await faults.eventsOf(wrong.map((j) => j.job)) : [];
    expect(wrong, log.join('\n')).toEqual([]);
  }, 600_000);
});

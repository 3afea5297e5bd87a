/**
 * The engine pool under faults, short form (`npm test`; the long one is `npm run test:faults`):
 * twelve jobs over three engines (this computer's stand-in, one by URL, an agent); the main Studio
 * SIGKILLed mid-run and started again at once; the agent's engine SIGKILLed (the agent restarts
 * it); the engine by URL frozen long enough to be marked offline, then resumed. Every job ends
 * completed exactly once (its retry after the restart counts as the job), no engine's history
 * shows it finished twice, its outputs are in its job folder, and nothing is left queued or running.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startPoolFaults, verdict, type PoolFaults } from '../../helpers/pool-faults.js';

let faults: PoolFaults | undefined;
afterAll(async () => faults?.close());

describe('the engine pool under faults (short)', () => {
  it('ends every job completed exactly once, with its outputs', async () => {
    faults = await startPoolFaults({ stepMs: 150 });
    await faults.submit(12, 6);
    await faults.completed(2);
    await faults.killMainAndRestart();
    await faults.completed(5);
    await faults.killAgentEngine();
    await faults.freezeRemote(7_000);
    await faults.completed(12, 60_000);
    const { byJob } = await verdict(faults);
    const wrong = byJob.filter((j) => j.completed !== 1 || j.active !== 0 || !j.outputs || j.successes.length !== 1);
    // On failure, what the event log says of those jobs (their retries included).
    const log = wrong.length ? await faults.eventsOf(wrong.map((j) => j.job)) : [];
    expect(wrong, log.join('\n')).toEqual([]);
  }, 180_000);
});

/**
 * Fair share between people (issue 43, point 4): on one engine, A queues 20 jobs and then B 2;
 * B's first job starts before A's third, though A's first two were already on the engine (one
 * running, one waiting in the engine's own queue) when B came.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plantModels, SHIPPED_MODELS } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { until } from '../../helpers/studio-ws.js';

let t: TestStudio;

beforeAll(async () => {
  // About a second a job: A's twenty are queued long before A's second one ends.
  t = await startTestStudio({ startEngine: true, env: { STANDIN_STEP_MS: '20', STANDIN_NODE_MS: '120' } });
  await t.studio.engineReady();
  plantModels(t.dir, SHIPPED_MODELS);
});

afterAll(async () => {
  await t?.stop();
});

describe('fair share by person', () => {
  it("starts B's first job before A's third", async () => {
    const { runner, lifecycle, queue } = t.studio.jobsModule;
    const started: string[] = [];
    const off = lifecycle.subscribe((change) => {
      if (change.type === 'job.started') started.push(change.job.prompt_id);
    });
    const submit = async (who: string) =>
      (await runner.execute('txt2img-sdxl', { positive: `a job of ${who}`, steps: 2 }, undefined, { ownerId: who, submitter: `user:${who}` })).prompt_id;
    const a: string[] = [];
    for (let i = 0; i < 20; i++) a.push(await submit('user-a'));
    const b = [await submit('user-b'), await submit('user-b')];
    await until(() => started.includes(b[0]!) && started.includes(a[2]!), "B's first and A's third started", 30_000);
    off();
    queue.clear();
    expect(started.indexOf(b[0]!)).toBeLessThan(started.indexOf(a[2]!));
    expect(started.slice(0, 2)).toEqual([a[0], a[1]]);
  });
});

/**
 * A graceful restart with a queue of work does not drop it: the jobs the restart left unfinished
 * (one running and one prefetched on the engine Studio restarts with it, two waiting in Studio's
 * queue) keep their `stalled` record, and each is retried once at once (QUEUE_RESUME_AFTER_RESTART,
 * on by default): a new job with `retry_of`, same parameters and seeds, in the old queue order.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execute, plantModels, SHIPPED_MODELS, waitForJob } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { until } from '../../helpers/studio-ws.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-resume-'));
let t: TestStudio | undefined;
afterAll(async () => {
  await t?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('a restart with a queue of work', () => {
  it('keeps each unfinished job stalled and retries it once, in the old queue order', async () => {
    const first = await startTestStudio({ dir, startEngine: true, env: { STANDIN_STEP_MS: '100' } });
    plantModels(dir, SHIPPED_MODELS);
    await first.studio.engineReady();
    const ids: string[] = [];
    for (const p of ['one', 'two', 'three', 'four']) ids.push((await execute(first.api, 'txt2img-sdxl', { params: { positive: p, steps: 20 } })).prompt_id);
    await until(async () => {
      const state = (await (await first.api('/api/admin/queue/state')).json()) as { engines: Array<{ running: string | null; prefetched: string[] }> };
      return state.engines[0]?.running === ids[0] && state.engines[0]?.prefetched[0] === ids[1];
    }, 'one job running and one prefetched', 30_000);
    const seeds = ids.map((id) => first.studio.jobs.get(id)?.seeds);
    await first.stop();

    t = await startTestStudio({ dir, startEngine: true, env: { STANDIN_STEP_MS: '5' } });
    const retries = await until(() => {
      const all = t!.studio.jobs.history({ limit: 100 });
      const found = ids.map((id) => all.filter((j) => j.retry_of === id));
      return found.every((f) => f.length > 0) ? found : null;
    }, 'a retry of each job', 60_000);
    for (const [i, id] of ids.entries()) {
      expect(t.studio.jobs.get(id)!.status).toBe('stalled');
      expect(retries[i]).toHaveLength(1);
      expect(retries[i]![0]!.seeds).toEqual(seeds[i]);
    }
    const events = (await (await t.api('/api/admin/events?types=job.retried&limit=100')).json()) as Array<{ data: { retry_of: string } }>;
    // The log is newest last: the retries came in the old queue order.
    expect(events.map((e) => e.data.retry_of)).toEqual(ids);
    for (const r of retries) expect((await waitForJob(t.api, r[0]!.prompt_id, ['completed', 'error', 'stalled'], 60_000)).status).toBe('completed');
  }, 150_000);
});

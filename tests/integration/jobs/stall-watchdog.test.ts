/**
 * The fault: the engine takes a prompt, lists it as running and then says nothing more (the
 * stand-in stuck in a node for ten minutes). With JOB_STALL_MINUTES at 0.05 (3 s) Studio marks
 * the job stalled with the "no progress" wording, tells the event log and WebSocket clients,
 * leaves the job waiting behind it alone, and the user can retry it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../server/contracts/jobs.contract.js';
import { stallMessage } from '../../../server/jobs/job-transitions.js';
import { execute, uploadSample, waitForJob } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { connectStudioWs, until, type StudioWsClient } from '../../helpers/studio-ws.js';

let t: TestStudio;
let ws: StudioWsClient;
beforeAll(async () => {
  t = await startTestStudio({ startEngine: true, env: { STANDIN_NODE_MS: '600000', JOB_STALL_MINUTES: '0.05' } });
  await t.studio.engineReady();
  ws = await connectStudioWs(t.url, t.apiKey);
});
afterAll(async () => {
  await ws.close();
  await t.stop();
});

describe('the stall watchdog', () => {
  it('marks a running job the engine went silent on stalled, with the reason, and the user can retry it', async () => {
    const image = await uploadSample(t.api, 'hung.png');
    const hung = await execute(t.api, 'image-filter', { params: { _existing_input_image: image } });
    const waiting = await execute(t.api, 'image-filter', { params: { _existing_input_image: image } });
    await waitForJob(t.api, hung.prompt_id, ['running']);

    const job = (await waitForJob(t.api, hung.prompt_id, ['stalled', 'completed', 'error'], 60_000)) as unknown as JobRecord;
    expect(job.status).toBe('stalled');
    expect(job.error).toBe(stallMessage({ cause: 'no_progress', minutes: 0.05 }));
    expect(job.error).toMatch(/no progress for 3 seconds/);
    // Waiting in the engine's queue is not being stuck: the job behind it, as silent, stays queued.
    expect(t.studio.jobs.get(waiting.prompt_id)?.status).toBe('queued');

    const frame = await until(() => ws.ofType('job.stalled').find((f) => f.data.prompt_id === hung.prompt_id), 'job.stalled frame');
    expect(frame.data).toEqual(t.studio.jobs.get(hung.prompt_id));
    const events = (await (await t.api('/api/admin/events?types=job.stalled')).json()) as { message: string; data: Record<string, unknown> }[];
    expect(events.filter((e) => e.data.prompt_id === hung.prompt_id)).toEqual([
      expect.objectContaining({ message: `Job stalled: ${job.error}`, data: expect.objectContaining({ cause: 'no_progress', error: job.error }) }),
    ]);
    const status = (await (await t.api(`/api/run/status/${hung.prompt_id}`)).json()) as Record<string, unknown>;
    expect(status).toEqual({ status: 'error', prompt_id: hung.prompt_id, error: job.error });

    const retry = await t.api('/api/admin/history/retry', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ prompt_id: hung.prompt_id }) });
    expect(retry.status).toBe(200);
    const retried = (await retry.json()) as { prompt_id: string; retry_of: string };
    expect(retried.retry_of).toBe(hung.prompt_id);
    expect(t.studio.jobs.get(retried.prompt_id)).toMatchObject({ status: 'queued', retry_of: hung.prompt_id });
  }, 90_000);
});

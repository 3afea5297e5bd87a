/**
 * A batch a crash cut short, with QUEUE_RESUME_AFTER_RESTART off: Studio runs as a child process
 * against a stand-in engine this test owns, is SIGKILLed, and starts again on the same data
 * directory. The cells that were waiting are stalled at boot and nothing retries them; once none
 * is left to run the batch ends (completed, its failed count naming the stalled cells) with its
 * `batch.completed` event, instead of staying "running" for ever. Two cases: a cell was running on
 * the engine (it ends later, when the engine is reconciled), and every cell was still waiting for
 * the batch's time window (all of them stalled at boot, before anything else happens).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startStandinEngine } from '../../../server/standin/standin.server.js';
import type { BatchCreated, BatchDetail } from '../../../server/contracts/batches.contract.js';
import { uploadSample } from '../../helpers/runner.js';
import { startStudioProcess, type StudioProcess } from '../../helpers/studio-process.js';
import { until } from '../../helpers/studio-ws.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

const detail = async (proc: StudioProcess, id: string) => (await (await proc.api(`/api/admin/batches/${id}`)).json()) as BatchDetail;

async function crashWithBatch(body: Record<string, unknown>, cutWhen: (d: BatchDetail) => boolean, resume = 'off'): Promise<{ second: StudioProcess; batchId: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-batch-restart-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const engine = await startStandinEngine({ port: 0, inputDir: path.join(dir, 'assets', 'input'), outputDir: path.join(dir, 'assets', 'output'), tempDir: path.join(dir, 'engine', 'temp'), stepMs: 100, nodeMs: 1_000 });
  cleanups.push(() => engine.close());
  const env = { STUDIO_DIR: dir, ENGINE_MODE: 'external', ENGINE_PORT: String(engine.port), QUEUE_RESUME_AFTER_RESTART: resume };
  const first = await startStudioProcess(env);
  cleanups.push(() => first.stop());
  const image = await uploadSample(first.api, 'batch-restart.png');
  const res = await first.api('/api/admin/batches', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ workflow_id: 'image-filter', kind: 'list', params: { _existing_input_image: image }, rows: [1, 2, 3, 4].map((strength) => ({ strength: strength / 10 })), ...body }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  const batch = (await res.json()) as BatchCreated;
  await until(async () => cutWhen(await detail(first, batch.id)), 'the moment to cut', 30_000);
  await first.kill();
  const second = await startStudioProcess(env);
  cleanups.push(() => second.stop());
  return { second, batchId: batch.id };
}

async function expectEnded(second: StudioProcess, batchId: string): Promise<void> {
  const ended = await until(async () => {
    const d = await detail(second, batchId);
    return d.status === 'completed' ? d : undefined;
  }, 'the batch ended after the restart', 60_000);
  expect(ended.cells.filter((c) => c.status === 'stalled').length).toBeGreaterThan(0);
  expect(ended.failed).toBeGreaterThan(0);
  const events = (await (await second.api('/api/admin/events?limit=1000&types=batch.*')).json()) as Array<{ type: string; data: { batch_id?: string } }>;
  expect(events.filter((e) => e.data.batch_id === batchId).map((e) => e.type)).toContain('batch.completed');
}

describe('a batch cut short by a crash, without resume', () => {
  it('ends once its running cell is settled after the restart', async () => {
    const { second, batchId } = await crashWithBatch({}, (d) => d.cells.some((c) => c.status === 'running'));
    await expectEnded(second, batchId);
  }, 150_000);

  it('ends at boot when all its cells were waiting (for its window)', async () => {
    // A window hours away in any zone: every cell waits in Studio's queue until the crash.
    const from = (new Date().getUTCHours() + 5) % 24;
    const hh = (h: number) => `${String(h % 24).padStart(2, '0')}:00`;
    const { second, batchId } = await crashWithBatch({ window: { from: hh(from), to: hh(from + 1) } }, (d) => d.cells.length === 4 && d.cells.every((c) => c.status === 'queued'));
    await expectEnded(second, batchId);
  }, 150_000);

  it('with resume on, does not end at boot: its stalled cells come back as retries and wait in its lane', async () => {
    const from = (new Date().getUTCHours() + 5) % 24;
    const hh = (h: number) => `${String(h % 24).padStart(2, '0')}:00`;
    const { second, batchId } = await crashWithBatch({ window: { from: hh(from), to: hh(from + 1) } }, (d) => d.cells.length === 4 && d.cells.every((c) => c.status === 'queued'), 'on');
    const back = await until(async () => {
      const d = await detail(second, batchId);
      return d.cells.every((c) => c.status === 'queued') ? d : undefined;
    }, 'every cell queued again as a retry', 60_000);
    expect(back.status).not.toBe('completed');
    const events = (await (await second.api('/api/admin/events?limit=1000&types=batch.*')).json()) as Array<{ type: string; data: { batch_id?: string } }>;
    expect(events.filter((e) => e.data.batch_id === batchId).map((e) => e.type)).toEqual(['batch.created']);
  }, 150_000);
});

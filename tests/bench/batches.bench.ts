/**
 * Batches (issue 45): a 1 000-row CSV batch posted to `POST /api/admin/batches`, timed from the
 * request to the answer (every row checked, every job built, pre-checked, recorded and queued),
 * then run to the end on the stand-in at its fastest, and `map.csv` checked to map every row to
 * its job and files.
 */
import { plantModels, SHIPPED_MODELS } from '../helpers/runner.js';
import { startTestStudio } from '../helpers/studio.js';
import { until } from '../helpers/studio-ws.js';
import type { BatchCreated, BatchDetail } from '../../server/contracts/batches.contract.js';
import { TARGETS, type TargetRow } from './targets.js';

const ROWS = 1_000;

/** Run the batches benchmark; its rows for the closing table. */
export async function run(_root: string): Promise<TargetRow[]> {
  const t = await startTestStudio({ startEngine: true, env: { STANDIN_STEP_MS: '0', STANDIN_NODE_MS: '0', BATCH_MAX_CELLS: String(ROWS) } });
  try {
    plantModels(t.dir, SHIPPED_MODELS);
    await until(async () => (await t.studio.engineModule.client.queue().catch(() => null)) !== null, 'the stand-in', 30_000);
    const csv = ['prompt,steps,cfg,notes', ...Array.from({ length: ROWS }, (_, i) => `"row ${i}, a lighthouse at dusk",${1 + (i % 4)},${(5 + (i % 10) / 2).toFixed(1)},ignored ${i}`)].join('\n');
    const body = JSON.stringify({ workflow_id: 'txt2img-sdxl', kind: 'csv', csv, mapping: { prompt: 'positive', steps: 'steps', cfg: 'cfg' }, params: {} });
    const t0 = performance.now();
    const res = await t.api('/api/admin/batches', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    const created = (await res.json()) as BatchCreated;
    const queuedMs = performance.now() - t0;
    if (res.status !== 200) throw new Error(`batch refused: ${res.status} ${JSON.stringify(created)}`);
    const detail = await until(async () => {
      const d = (await (await t.api(`/api/admin/batches/${created.id}`)).json()) as BatchDetail;
      return d.status === 'completed' ? d : undefined;
    }, 'the batch completed', 600_000);
    const doneMs = performance.now() - t0;
    const map = (await (await t.api(`/api/admin/batches/${created.id}/map.csv`)).text()).trim().split('\r\n').slice(1);
    const mapped = map.filter((line, i) => line.includes(created.job_ids[i]!) && /,completed,.+\.png$/.test(line)).length;
    console.log(`${ROWS}-row CSV batch: validated and queued in ${queuedMs.toFixed(0)} ms; all ${detail.done} completed after ${(doneMs / 1000).toFixed(1)} s; map.csv maps ${mapped} of ${ROWS} rows to their job and files`);
    return [{ measure: `${ROWS}-row CSV batch validated and queued`, target: TARGETS.batchQueue.text, value: `${queuedMs.toFixed(0)} ms`, met: queuedMs < TARGETS.batchQueue.ms && mapped === ROWS }];
  } finally {
    await t.stop();
  }
}

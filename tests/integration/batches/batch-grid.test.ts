/**
 * A 3 × 3 × 2 grid (CFG × sampler × LoRA weight) on two stand-in engines (issue 45): 18 jobs,
 * spread over both, all completed, each with exactly its cell's values and one shared seed; the
 * exports (grid.png laid out and labelled, map.csv, outputs.zip); a re-run cell gives the same
 * bytes; a bad value is a 400 naming its axis before anything is queued, past the cap a 413; a
 * batch is its maker's (another member gets 404).
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plantModels, SHIPPED_MODELS, waitForJob } from '../../helpers/runner.js';
import { startStandin, type StandinProcess } from '../../helpers/standin-process.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { until } from '../../helpers/studio-ws.js';
import { addPerson, as, signIn } from '../../helpers/people.js';
import { withoutText } from '../../helpers/provenance-setup.js';
import { batchDetail, createBatch, GRID_WORKFLOW, writeGridWorkflow } from '../../helpers/batches.js';
import { gridLayout, LABEL_BAND, ROW_LABEL_WIDTH } from '../../../server/batches/batch-grid-image.js';
import type { BatchCreated } from '../../../server/contracts/batches.contract.js';

let t: TestStudio;
let other: StandinProcess;
const MODELS = { ...SHIPPED_MODELS, loras: ['style.safetensors'] };
const AXES = [
  { input: 'cfg', values: [5, 7, 9] },
  { input: 'sampler', values: ['euler', 'dpmpp_2m', 'ddim'] },
  { input: 'loras[0].strength', values: { from: 0.5, to: 1, step: 0.5 }, label: 'LoRA weight' },
];
const BASE = { steps: 3, loras: [{ name: 'style.safetensors', strength: 1 }] };
let created: BatchCreated;

beforeAll(async () => {
  other = await startStandin({ stepMs: 20, models: MODELS });
  t = await startTestStudio({ startEngine: true, env: { STANDIN_STEP_MS: '20', STANDIN_NODE_MS: '5', ENGINE_POOL_PROBE_MS: '200' } });
  plantModels(t.dir, MODELS);
  writeGridWorkflow(t.dir);
  await until(async () => (await t.studio.engineModule.client.queue().catch(() => null)) !== null, 'the local stand-in', 30_000);
  const added = await t.api('/api/admin/engines', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'Second box', url: other.url }) });
  expect(added.status).toBe(201);
  await until(async () => ((await (await t.api('/api/admin/engines')).json()) as { engines: Array<{ status: string }> }).engines.every((e) => e.status === 'online'), 'two engines online', 30_000);
}, 90_000);

afterAll(async () => {
  await t?.stop();
  await other?.stop();
});

describe('a grid batch on two engines', () => {
  it('queues 18 cells, spreads them over both engines and completes them with their own values', async () => {
    const res = await createBatch(t, { workflow_id: GRID_WORKFLOW, kind: 'grid', params: BASE, axes: AXES, name: 'cfg sweep' });
    expect(res.status).toBe(200);
    created = (await res.json()) as BatchCreated;
    expect(created.job_ids).toHaveLength(18);
    expect(created.cells[17]!.values).toEqual({ cfg: 9, sampler: 'ddim', 'loras[0].strength': 1 });
    const done = await until(async () => {
      const d = await batchDetail(t, created.id);
      return d.status === 'completed' ? d : undefined;
    }, 'the batch completed', 60_000);
    expect(done.done).toBe(18);
    expect(done.cells.every((c) => c.status === 'completed' && c.outputs.length > 0)).toBe(true);
    expect(new Set(done.cells.map((c) => c.engine_id)).size).toBe(2);
    const history = (await (await t.api('/api/admin/history')).json()) as Array<{ prompt_id: string; params: Record<string, unknown>; seeds: Record<string, number> }>;
    const jobOf = (id: string) => history.find((j) => j.prompt_id === id)!;
    for (const cell of done.cells) {
      const job = jobOf(cell.prompt_id);
      expect(job.params.cfg).toBe(cell.values.cfg);
      expect(job.params.sampler).toBe(cell.values.sampler);
      expect((job.params.loras as Array<{ strength: number }>)[0]!.strength).toBe(cell.values['loras[0].strength']);
    }
    expect(new Set(done.cells.map((c) => jobOf(c.prompt_id).seeds.seed)).size).toBe(1);
  }, 90_000);

  it('draws grid.png with the axes it is asked for, labelled', async () => {
    const res = await t.api(`/api/admin/batches/${created.id}/grid.png`);
    expect(res.status).toBe(200);
    const png = Buffer.from(await res.arrayBuffer());
    const meta = await sharp(png).metadata();
    // CFG across, sampler down, LoRA weight as two pages.
    const layout = gridLayout(3, 3, 2, 18);
    expect([meta.width, meta.height]).toEqual([layout.width, layout.height]);
    const inked = async (left: number, top: number, width: number, height: number) => {
      const { data } = await sharp(png).extract({ left, top, width, height }).greyscale().raw().toBuffer({ resolveWithObject: true });
      return data.filter((v) => v < 128).length;
    };
    // Ink where each column label and each row label is written, none in an empty margin.
    for (let c = 0; c < 3; c++) expect(await inked(layout.at(c, 0, 0).left, LABEL_BAND, layout.cell, LABEL_BAND - 4)).toBeGreaterThan(20);
    for (let r = 0; r < 3; r++) expect(await inked(8, layout.at(0, r, 1).top, ROW_LABEL_WIDTH - 16, layout.cell)).toBeGreaterThan(20);
    expect(await inked(0, layout.height - 6, layout.width, 6)).toBe(0);
    // Swapped: LoRA weight across, CFG down, sampler as pages.
    const swapped = await sharp(Buffer.from(await (await t.api(`/api/admin/batches/${created.id}/grid.png?x=2&y=0`)).arrayBuffer())).metadata();
    const other = gridLayout(2, 3, 3, 18);
    expect([swapped.width, swapped.height]).toEqual([other.width, other.height]);
  });

  it('maps every cell to its job and files (map.csv) and zips every output', async () => {
    const csv = await (await t.api(`/api/admin/batches/${created.id}/map.csv`)).text();
    const lines = csv.trim().split('\r\n');
    expect(lines[0]).toBe('cell,cfg,sampler,loras[0].strength,prompt_id,status,files');
    expect(lines).toHaveLength(19);
    for (const [i, id] of created.job_ids.entries()) expect(lines[i + 1]).toMatch(new RegExp(`^${i + 1},.*,${id},completed,.+\\.png$`));
    const zip = Buffer.from(await (await t.api(`/api/admin/batches/${created.id}/outputs.zip`)).arrayBuffer());
    expect(zip.subarray(0, 2).toString()).toBe('PK');
    expect(zip.includes('cell-0018/')).toBe(true);
    expect(zip.includes('map.csv')).toBe(true);
  });

  it('re-runs a cell to the same output bytes', async () => {
    const cell = (await batchDetail(t, created.id)).cells[4]!;
    const res = await t.api('/api/admin/history/retry', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ prompt_id: cell.prompt_id }) });
    expect(res.status).toBe(200);
    const again = (await res.json()) as { prompt_id: string };
    const job = await waitForJob(t.api, again.prompt_id, ['completed'], 30_000);
    const outputs = path.join(t.dir, 'assets', 'output');
    // The image itself, byte for byte; its text chunks name the job (its folder, its lock) and so differ.
    const files = (dir: string) => fs.readdirSync(path.join(outputs, dir, 'final')).map((n) => withoutText(fs.readFileSync(path.join(outputs, dir, 'final', n))));
    const rerun = files(job.output_dir as string);
    expect(rerun.length).toBeGreaterThan(0);
    expect(rerun).toEqual(files(cell.output_dir!));
  });

  it('refuses a bad value naming its axis (400) and a grid past the cap (413) with nothing queued', async () => {
    const before = ((await (await t.api('/api/admin/history')).json()) as unknown[]).length;
    const bad = await createBatch(t, { workflow_id: GRID_WORKFLOW, kind: 'grid', params: BASE, axes: [{ input: 'cfg', values: [5, 50] }] });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { detail: string }).detail).toMatch(/axis "cfg": value 50/);
    const big = await createBatch(t, { workflow_id: GRID_WORKFLOW, kind: 'grid', params: BASE, axes: [{ input: 'steps', values: { from: 1, to: 100, step: 1 } }, { input: 'cfg', values: [1, 2, 3, 4, 5, 6] }] });
    expect(big.status).toBe(413);
    const engineRefused = await createBatch(t, { workflow_id: GRID_WORKFLOW, kind: 'list', params: BASE, rows: [{ steps: 2 }, { loras: [{ name: 'missing.safetensors', strength: 1 }] }] });
    expect(engineRefused.status).toBe(400);
    expect(((await engineRefused.json()) as { detail: string }).detail).toMatch(/^row 2: /);
    expect(((await (await t.api('/api/admin/history')).json()) as unknown[]).length).toBe(before);
    expect(((await (await t.api('/api/admin/batches')).json()) as unknown[]).length).toBe(1);
  });

  it("answers another member's batch as a missing one", async () => {
    const member = await addPerson(t, 'mia', 'member');
    const cookie = await signIn(t, member);
    expect((await as(t, { cookie }, `/api/admin/batches/${created.id}`)).status).toBe(404);
    expect((await as(t, { cookie }, `/api/admin/batches/${created.id}/pause`, { method: 'POST' })).status).toBe(404);
    expect(await (await as(t, { cookie }, '/api/admin/batches')).json()).toEqual([]);
  });
});

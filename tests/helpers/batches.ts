/**
 * Batch helpers for integration tests (issue 45): a workflow whose sampler's CFG and sampler name
 * are form inputs beside a LoRA list (a copy of the shipped SDXL-with-LoRAs workflow), and
 * `POST /api/admin/batches`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { APP_ROOT } from '../../server/config.js';
import type { BatchDetail } from '../../server/contracts/batches.contract.js';
import type { TestStudio } from './studio.js';

export const GRID_WORKFLOW = 'grid-test';

/** Write the `grid-test` workflow into the Studio's workflows folder. */
export function writeGridWorkflow(studioDir: string): void {
  const from = path.join(APP_ROOT, 'workflows', 'txt2img-sdxl-lora');
  const to = path.join(studioDir, 'workflows', GRID_WORKFLOW);
  fs.cpSync(from, to, { recursive: true });
  const sampler = path.join(to, 'blocks', 'sampler.json');
  fs.writeFileSync(sampler, fs.readFileSync(sampler, 'utf8').replace('"cfg": 7', '"cfg": "{{cfg}}"').replace('"sampler_name": "dpmpp_2m"', '"sampler_name": "{{sampler}}"'));
  const manifest = path.join(to, 'manifest.yaml');
  const extra =
    '  - id: cfg\n    type: float\n    label: CFG\n    block: sampler\n    node_id: 4\n    field: cfg\n    default: 7\n    min: 1\n    max: 20\n' +
    '  - id: sampler\n    type: select\n    label: Sampler\n    block: sampler\n    node_id: 4\n    field: sampler_name\n    default: euler\n    options: [euler, dpmpp_2m, ddim]\n';
  fs.writeFileSync(manifest, fs.readFileSync(manifest, 'utf8').replace('id: txt2img-sdxl-lora', `id: ${GRID_WORKFLOW}`).replace('inputs:\n', `inputs:\n${extra}`));
}

export function createBatch(t: TestStudio, body: unknown): Promise<Response> {
  return t.api('/api/admin/batches', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
}

export async function batchDetail(t: TestStudio, id: string): Promise<BatchDetail> {
  return (await (await t.api(`/api/admin/batches/${id}`)).json()) as BatchDetail;
}

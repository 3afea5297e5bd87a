/**
 * A job package from one Studio, run again on a second (two data folders in one test): the
 * second lacks the LoRA and has the job's node package at another commit, and Run again lists
 * exactly those two differences with their fixes before anything runs. After the LoRA is
 * downloaded from the catalog (the fix's own request) and the package difference is accepted, it
 * runs and the stand-in produces the same image data and the same parameters.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LockReport, RunAgainResult } from '../../../server/contracts/provenance.contract.js';
import { catalogOf, repoEntry, sha256, writeCatalogs } from '../../helpers/fake-catalogs.js';
import { startFakeFileServer, type FakeFileServer } from '../../helpers/fake-file-server.js';
import { installNodePackage, LORA_BYTES, nodePackageOrigin, outputPng, plantLoraModels, runLoraJob, textOf, withoutText } from '../../helpers/provenance-setup.js';
import { waitForJob } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let root: string;
let a: TestStudio;
let b: TestStudio;
let files: FakeFileServer;
let origin: { url: string; commits: [string, string] };
let jobId: string;

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-two-'));
  origin = nodePackageOrigin(root);
  files = await startFakeFileServer({ content: LORA_BYTES });
  const dirA = path.join(root, 'a');
  installNodePackage(dirA, origin.url, origin.commits[1]);
  plantLoraModels(dirA);
  const dirB = path.join(root, 'b');
  installNodePackage(dirB, origin.url, origin.commits[0]);
  plantLoraModels(dirB, false);
  writeCatalogs(dirB, { loras: catalogOf([repoEntry('style.safetensors', { dest: 'loras', sha256: sha256(LORA_BYTES) })], 'loras') });
  [a, b] = await Promise.all([
    startTestStudio({ dir: dirA, startEngine: true }),
    startTestStudio({ dir: dirB, startEngine: true, env: { REPOHOST_BASE_URL: files.url, MODELHUB_BASE_URL: files.url } }),
  ]);
  await Promise.all([a.studio.engineReady(), b.studio.engineReady()]);
  jobId = await runLoraJob(a);
}, 60_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop(), files?.close()]);
  fs.rmSync(root, { recursive: true, force: true });
});

async function importInto(t: TestStudio, bytes: Buffer, name: string): Promise<LockReport> {
  const form = new FormData();
  form.append('file', new Blob([bytes]), name);
  const res = await t.api('/api/admin/provenance/import', { method: 'POST', body: form });
  expect(res.status).toBe(200);
  return (await res.json()) as LockReport;
}

const post = (t: TestStudio, pathname: string, body: unknown) => t.api(pathname, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

describe('Run again on another Studio', () => {
  it('lists exactly the missing LoRA and the package at another commit, then runs to the same image', async () => {
    const zip = Buffer.from(await (await a.api(`/api/admin/history/${jobId}/package`)).arrayBuffer());
    const report = await importInto(b, zip, `job_${jobId}.zip`);
    expect(report.differences).toEqual([
      {
        kind: 'node_package',
        what: 'demo-pack',
        here: origin.commits[0],
        there: origin.commits[1],
        fix: [
          { action: 'update_node', label: `Put demo-pack at ${origin.commits[1].slice(0, 7)}`, request: { method: 'POST', path: '/api/admin/nodes/demo-pack/update', body: { commit: origin.commits[1] } } },
          { action: 'run_anyway', label: 'Run anyway' },
        ],
      },
      {
        kind: 'model_missing',
        what: 'loras/style.safetensors',
        here: null,
        there: sha256(LORA_BYTES),
        fix: [
          { action: 'download_model', label: 'Download style.safetensors from the catalog', request: { method: 'POST', path: '/api/admin/models/download/style.safetensors' } },
          { action: 'run_anyway', label: 'Run anyway' },
        ],
      },
    ]);

    // Nothing runs while there are differences and nobody said to run anyway.
    const held = (await (await post(b, '/api/admin/provenance/run', { lock: report.lock })).json()) as RunAgainResult;
    expect(held).toEqual({ status: 'differences', differences: report.differences });

    // The download fix, as the page sends it.
    const download = report.differences[1]!.fix[0]!.request!;
    expect((await post(b, download.path, download.body ?? {})).status).toBe(200);
    const lora = path.join(b.dir, 'models', 'loras', 'style.safetensors');
    for (let i = 0; i < 100 && !fs.existsSync(lora); i++) await new Promise((r) => setTimeout(r, 100));
    expect(fs.readFileSync(lora).equals(LORA_BYTES)).toBe(true);
    expect((await importInto(b, zip, 'again.zip')).differences.map((d) => d.kind)).toEqual(['node_package']);

    // The package difference accepted: it runs, and the image is the first Studio's.
    const run = (await (await post(b, '/api/admin/provenance/run', { lock: report.lock, run_anyway: true })).json()) as RunAgainResult;
    expect(run.status).toBe('queued');
    const promptId = run.status === 'queued' ? run.prompt_id : '';
    await waitForJob(b.api, promptId);
    const [first, second] = await Promise.all([outputPng(a, jobId), outputPng(b, promptId)]);
    expect(withoutText(second).equals(withoutText(first))).toBe(true);
    expect(textOf(second, 'parameters')).toBe(textOf(first, 'parameters'));
  });
});

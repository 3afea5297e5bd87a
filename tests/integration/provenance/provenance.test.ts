/**
 * Provenance on one Studio with the stand-in engine: a finished job's PNG carries the engine's
 * own chunks plus the A1111 parameters of the graph that ran (read back by an infotext parser
 * written from the format's description) and its lock; the lock route answers with no
 * differences on the same box and "not found" for someone else's job; Run again gives the same
 * image; the job package carries lock.json; the setting turns the metadata off.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LockReport, RunAgainResult } from '../../../server/contracts/provenance.contract.js';
import { loadMedia, standinResourcesDir } from '../../../server/standin/media.store.js';
import { parseInfotext } from '../../helpers/a1111-infotext.js';
import { sha256 } from '../../helpers/fake-catalogs.js';
import { addPerson, as, signIn } from '../../helpers/people.js';
import { installNodePackage, LORA_BYTES, LORA_PARAMS, nodePackageOrigin, outputPng, pixels, plantLoraModels, runLoraJob, textOf, withoutText } from '../../helpers/provenance-setup.js';
import { waitForJob } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let t: TestStudio;
let root: string;
let origin: { url: string; commits: [string, string] };
let jobId: string;
let png: Buffer;

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-provenance-'));
  origin = nodePackageOrigin(root);
  const dir = path.join(root, 'studio');
  installNodePackage(dir, origin.url, origin.commits[1]);
  plantLoraModels(dir);
  t = await startTestStudio({ dir, startEngine: true });
  await t.studio.engineReady();
  jobId = await runLoraJob(t);
  png = await outputPng(t, jobId);
}, 60_000);

afterAll(async () => {
  await t?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

const post = (pathname: string, body: unknown = {}) => t.api(pathname, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

describe('an output of the stand-in', () => {
  it('carries the A1111 parameters of the graph that ran', () => {
    const info = parseInfotext(textOf(png, 'parameters') ?? '');
    expect(info.prompt).toBe(LORA_PARAMS.positive);
    expect(info.negative).toBe(LORA_PARAMS.negative);
    expect(info.fields).toMatchObject({ Steps: '12', Sampler: 'DPM++ 2M', 'Schedule type': 'Karras', 'CFG scale': '7', Seed: '4242', Model: 'sd_xl_base_1.0' });
    expect([info.width, info.height]).toEqual([832, 1216]);
    expect(info.fields['Model hash']).toBe(sha256(Buffer.from('stand-in weights')).slice(0, 10));
    expect(info.loraHashes).toEqual({ style: sha256(LORA_BYTES).slice(0, 10) });
    expect(info.resources).toEqual([
      { type: 'checkpoint', modelName: 'sd_xl_base_1.0', hash: sha256(Buffer.from('stand-in weights')).slice(0, 10) },
      { type: 'lora', modelName: 'style', weight: 0.7, hash: sha256(LORA_BYTES).slice(0, 10) },
    ]);
  });

  it("keeps the engine's prompt and workflow chunks and the engine's pixels", async () => {
    const graph = JSON.parse(textOf(png, 'prompt')!) as Record<string, { class_type: string }>;
    expect(Object.values(graph).map((n) => n.class_type)).toContain('LoraLoader');
    const workflow = JSON.parse(textOf(png, 'workflow')!) as { nodes: unknown[]; links: unknown[] };
    expect(workflow.nodes.length).toBe(Object.keys(graph).length);
    expect((await pixels(png)).equals(await pixels(loadMedia(standinResourcesDir()).png))).toBe(true);
  });
});

describe('the lock', () => {
  it('records the engine, the node package, the skipped Python, the models, the workflow, parameters and seeds', async () => {
    const res = await t.api(`/api/admin/history/${jobId}/lock`);
    expect(res.status).toBe(200);
    const { lock, differences } = (await res.json()) as LockReport;
    expect(differences).toEqual([]);
    expect(lock.engine).toMatchObject({ kind: 'standin', version: '0.29.0-standin' });
    expect(lock.node_packages).toEqual([{ name: 'demo-pack', repo: origin.url, commit: origin.commits[1], disabled: false }]);
    expect(lock.python).toEqual({ packages_sha256: null, packages: null, skipped: 'the stand-in engine has no Python environment' });
    expect(lock.models).toEqual([
      { folder: 'checkpoints', file: 'sd_xl_base_1.0.safetensors', sha256: sha256(Buffer.from('stand-in weights')), size: 16 },
      { folder: 'loras', file: 'style.safetensors', sha256: sha256(LORA_BYTES), size: LORA_BYTES.length },
    ]);
    expect(lock.workflow).toEqual({ id: 'txt2img-sdxl-lora', name: 'SDXL text to image with LoRAs', version: 1 });
    expect(lock.seeds).toEqual({ seed: 4242 });
    expect(lock.params).toMatchObject({ positive: LORA_PARAMS.positive, steps: 12 });
    // The PNG carries the same lock, for Run again from the image alone.
    expect(JSON.parse(textOf(png, 'studio_lock')!)).toEqual(lock);
  });

  it("answers not found for another person's job, as every job route", async () => {
    const member = await addPerson(t, 'mia', 'member');
    const cookie = await signIn(t, member);
    for (const [method, pathname] of [['GET', `/api/admin/history/${jobId}/lock`], ['POST', `/api/admin/history/${jobId}/run-again`]] as const) {
      const res = await as(t, { cookie }, pathname, { method, headers: { 'Content-Type': 'application/json' }, ...(method === 'POST' ? { body: '{}' } : {}) });
      expect(res.status, pathname).toBe(404);
    }
    expect((await t.api('/api/admin/history/no-such-job/lock')).status).toBe(404);
  });

  it('is lock.json beside job.json in the job package', async () => {
    const zip = Buffer.from(await (await t.api(`/api/admin/history/${jobId}/package`)).arrayBuffer());
    const form = new FormData();
    form.append('file', new Blob([zip]), 'package.zip');
    const report = (await (await t.api('/api/admin/provenance/import', { method: 'POST', body: form })).json()) as LockReport;
    expect(report.lock.prompt_id).toBe(jobId);
    expect(report.differences).toEqual([]);
  });
});

describe('Run again', () => {
  it('on the unchanged box runs at once and gives the same image', async () => {
    const res = await post(`/api/admin/history/${jobId}/run-again`);
    const result = (await res.json()) as RunAgainResult;
    expect(result).toMatchObject({ status: 'queued', differences: [] });
    const again = result.status === 'queued' ? result.prompt_id : '';
    await waitForJob(t.api, again);
    const second = await outputPng(t, again);
    // The image data is byte-identical; only the text (the job folder's name, the new lock) differs.
    expect(withoutText(second).equals(withoutText(png))).toBe(true);
    expect(textOf(second, 'parameters')).toBe(textOf(png, 'parameters'));
  });

  it('from an output image dropped on the page', async () => {
    const form = new FormData();
    form.append('file', new Blob([png]), 'out.png');
    const report = (await (await t.api('/api/admin/provenance/import', { method: 'POST', body: form })).json()) as LockReport;
    expect(report.differences).toEqual([]);
    const run = (await (await post('/api/admin/provenance/run', { lock: report.lock })).json()) as RunAgainResult;
    expect(run.status).toBe('queued');
  });

  it('refuses a file that carries no lock, with words', async () => {
    const form = new FormData();
    form.append('file', new Blob([loadMedia(standinResourcesDir()).png]), 'plain.png');
    const res = await t.api('/api/admin/provenance/import', { method: 'POST', body: form });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/no Studio lock/);
  });
});

describe('the settings', () => {
  it('turn the metadata off, and keep one workflow’s prompts private', async () => {
    expect(await (await t.api('/api/admin/provenance/settings')).json()).toEqual({ metadata: true, private_prompt_workflows: [] });
    const put = (body: unknown) => t.api('/api/admin/provenance/settings', { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    expect((await put({ metadata: 'yes' })).status).toBe(400);
    expect(await (await put({ private_prompt_workflows: ['txt2img-sdxl-lora'] })).json()).toEqual({ metadata: true, private_prompt_workflows: ['txt2img-sdxl-lora'] });
    const privateOut = await outputPng(t, await runLoraJob(t));
    expect(privateOut.includes('lighthouse')).toBe(false);
    expect(parseInfotext(textOf(privateOut, 'parameters')!).fields.Seed).toBe('4242');
    await put({ metadata: false, private_prompt_workflows: [] });
    const plain = await outputPng(t, await runLoraJob(t));
    expect(textOf(plain, 'parameters')).toBeUndefined();
    expect(textOf(plain, 'workflow')).toBeDefined();
    await put({ metadata: true });
  });
});

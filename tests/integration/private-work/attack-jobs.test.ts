/**
 * The attack of issue 43 on jobs and their outputs, through Studio's real front door: A and B are
 * members the owner added, signed in by name and password (cookies) and with personal keys. A's 100
 * jobs are rows of A's real id with real output folders (two of them run for real through A's
 * session on the stand-in engine). B, by cookie and by key in turn, tries every one of A's ids on
 * every job route family and A's output files on every file route: each answer is exactly the
 * answer for an id that never existed, nothing of A's changes, and no listing shows any of it.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AssetListing } from '../../../server/contracts/assets.contract.js';
import type { JobRecord, JobStatus } from '../../../server/contracts/jobs.contract.js';
import { expectAsMissing, signedIn, type AttackRoute, type SignedIn } from '../../helpers/attack.js';
import { jobFixtures } from '../../helpers/job-fixtures.js';
import { as, json } from '../../helpers/people.js';
import { execute, plantModels, SAMPLE_PNG, SHIPPED_MODELS, waitForJob } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let t: TestStudio;
let a: SignedIn;
let b: SignedIn;
const aIds: string[] = [];
const aFiles: string[] = [];

function record(id: string, status: JobStatus, ownerId: string): JobRecord {
  const folder = `job_${id.slice(0, 8)}`;
  return {
    prompt_id: id, workflow_id: 'image-filter', workflow_name: 'Image noise and blur', output_dir: folder, status,
    queued_at: '2026-11-28T10:00:00', started_at: null, finished_at: status === 'queued' ? null : '2026-11-28T10:01:00', duration: 1,
    input_image: null, params: { positive: 'a secret of A' }, seeds: {}, output: status === 'completed' ? { filename: 'out.png', subfolder: `${folder}/final`, type: 'output' } : null,
    error: null, owner_id: ownerId,
  };
}

beforeAll(async () => {
  t = await startTestStudio({ startEngine: true, env: { STANDIN_STEP_MS: '20', STANDIN_NODE_MS: '50' } });
  await t.studio.engineReady();
  plantModels(t.dir, SHIPPED_MODELS);
  a = await signedIn(t, 'Ann', 'member');
  b = await signedIn(t, 'Ben', 'member');
  // Two real jobs of A, run through A's session and key.
  for (const auth of [a.cookie, { key: a.key.key }]) {
    const { prompt_id } = await execute((p, init) => as(t, auth, p, init), 'txt2img-sdxl', { params: { positive: 'a secret of A', steps: 2 } });
    const job = await waitForJob((p, init) => as(t, a.cookie, p, init), prompt_id);
    aIds.push(prompt_id);
    const output = job.output as { filename: string; subfolder: string };
    aFiles.push(`${output.subfolder}/${output.filename}`);
  }
  const rows = jobFixtures(t.studio);
  const outputDir = path.join(t.dir, 'assets', 'output');
  for (let i = 0; i < 98; i++) {
    const id = crypto.randomUUID();
    // Mostly finished; every tenth still queued (cancel and move reach those).
    rows.insert(record(id, i % 10 === 0 ? 'queued' : 'completed', a.id), Date.now() - 1000 + i);
    const folder = path.join(outputDir, `job_${id.slice(0, 8)}`, 'final');
    fs.mkdirSync(folder, { recursive: true });
    fs.copyFileSync(SAMPLE_PNG, path.join(folder, 'out.png'));
    aIds.push(id);
    aFiles.push(`job_${id.slice(0, 8)}/final/out.png`);
  }
}, 60_000);

afterAll(async () => t?.stop());

/** Every route family that names one job. */
const JOB_ROUTES: AttackRoute[] = [
  { name: 'job', path: (id) => `/api/admin/history/${id}` },
  { name: 'status', path: (id) => `/api/run/status/${id}` },
  { name: 'result', path: (id) => `/api/run/result/${id}` },
  { name: 'package', path: (id) => `/api/admin/history/${id}/package` },
  { name: 'star', path: (id) => `/api/admin/history/${id}/star`, init: () => json('POST', { starred: true }) },
  { name: 'retry', path: () => '/api/admin/history/retry', init: (id) => json('POST', { prompt_id: id }) },
  { name: 'delete', path: () => '/api/admin/history/delete', init: (id) => json('POST', { prompt_ids: [id] }) },
  { name: 'cancel', path: () => '/api/admin/queue/cancel', init: (id) => json('POST', { prompt_id: id }) },
  { name: 'move', path: () => '/api/admin/queue/move', init: (id) => json('POST', { prompt_id: id, position: 0 }) },
];

/** Every route that names one output file (`folder/final/name`). */
const FILE_ROUTES: AttackRoute[] = [
  { name: 'file', path: (p) => `/api/admin/assets/file?type=outputs&path=${encodeURIComponent(p)}` },
  { name: 'thumbnail', path: (p) => `/api/admin/assets/thumbnail?type=outputs&path=${encodeURIComponent(p)}` },
  { name: 'engine view', path: (p) => `/api/engine/view?type=output&subfolder=${encodeURIComponent(path.posix.dirname(p))}&filename=${encodeURIComponent(path.posix.basename(p))}` },
  { name: 'asset delete', path: () => '/api/admin/assets/delete', init: (p) => json('POST', { type: 'outputs', files: [p] }) },
];

const jobCount = () => (t.studio.db.prepare('SELECT COUNT(*) AS n FROM jobs').get() as { n: number }).n;

describe("member B and member A's jobs, signed in for real", () => {
  it('answers every job route family for each of A\'s 100 ids exactly as for an id that does not exist', async () => {
    const before = jobCount();
    await expectAsMissing(t, b, aIds, () => crypto.randomUUID(), JOB_ROUTES);
    // No retry of B's made a job, no delete took one.
    expect(jobCount()).toBe(before);
  }, 120_000);

  it("answers every file route for A's 100 output files exactly as for a missing file", async () => {
    await expectAsMissing(t, b, aFiles, (p) => p.replace(/^[^/]+/, `job_${crypto.randomBytes(4).toString('hex')}`), FILE_ROUTES, (p) => p.split('/')[0]!);
  }, 120_000);

  it("leaves A's jobs and files as they were", () => {
    for (const id of aIds) expect(t.studio.jobsModule.jobs.get(id)).toMatchObject({ prompt_id: id, owner_id: a.id, status: expect.stringMatching(/queued|completed/) as string });
    expect(t.studio.db.prepare('SELECT COUNT(*) AS n FROM jobs WHERE starred = 1').get()).toEqual({ n: 0 });
    for (const file of aFiles) expect(fs.existsSync(path.join(t.dir, 'assets', 'output', file)), file).toBe(true);
  });

  it('lists none of them in B\'s history, queue, assets or outputs ZIP; A sees them all', async () => {
    const ids = async (auth: SignedIn['cookie'], route: string) => new Set(((await (await as(t, auth, route)).json()) as JobRecord[]).map((j) => j.prompt_id));
    for (const route of ['/api/admin/history?limit=500', '/api/admin/history?limit=500&owner=everyone', '/api/admin/queue']) {
      const seen = await ids(b.cookie, route);
      expect(aIds.filter((id) => seen.has(id)), route).toEqual([]);
    }
    const aSeen = new Set([...(await ids(a.cookie, '/api/admin/history?limit=500')), ...(await ids(a.cookie, '/api/admin/queue'))]);
    expect(aIds.filter((id) => !aSeen.has(id))).toEqual([]);
    const outputs = (await (await as(t, b.cookie, '/api/admin/assets/outputs')).json()) as AssetListing;
    expect(outputs.studio_jobs).toEqual([]);
    // The whole-output ZIP is the owner's and admins': a member gets 403 whatever the ids.
    expect((await as(t, { key: b.key.key }, '/api/admin/outputs-zip')).status).toBe(403);
    expect((await as(t, a.cookie, `/api/admin/history/${aIds[0]!}/package`)).status).toBe(200);
    expect((await as(t, { key: a.key.key }, FILE_ROUTES[2]!.path(aFiles[0]!))).status).toBe(200);
  });
});

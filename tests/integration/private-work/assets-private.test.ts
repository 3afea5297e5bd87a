/**
 * Private work, the attack on files (issue 43): member A's job folders (real rows, real files) and
 * A's uploaded inputs (uploaded through the real route) are, to member B, not there: not in the
 * listings, not in the outputs ZIP, and every file route — the asset file, its thumbnail, delete,
 * `/api/engine/view` — answers A's path exactly as a path that does not exist.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AssetListing } from '../../../server/contracts/assets.contract.js';
import type { JobRecord } from '../../../server/contracts/jobs.contract.js';
import { jobFixtures } from '../../helpers/job-fixtures.js';
import { openPersonDoor, person, type PersonDoor } from '../../helpers/as-person.js';
import { executeRaw, SAMPLE_PNG } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

const A = person('user-a');
const B = person('user-b');
let t: TestStudio;
let door: PersonDoor;
const folders: string[] = [];
const inputs: string[] = [];

function record(id: string, folder: string): JobRecord {
  return {
    prompt_id: id, workflow_id: 'image-filter', workflow_name: 'Image noise and blur', output_dir: folder, status: 'completed',
    queued_at: '2026-11-28T10:00:00', started_at: null, finished_at: '2026-11-28T10:01:00', duration: 1, input_image: null,
    params: {}, seeds: {}, output: { filename: 'out.png', subfolder: `${folder}/final`, type: 'output' }, error: null, owner_id: A.userId,
  };
}

beforeAll(async () => {
  t = await startTestStudio({ startEngine: true });
  await t.studio.engineReady();
  door = await openPersonDoor(t.studio, [A, B]);
  const rows = jobFixtures(t.studio);
  for (let i = 0; i < 50; i++) {
    const folder = `a-job_${i}_${crypto.randomBytes(3).toString('hex')}`;
    rows.insert(record(crypto.randomUUID(), folder));
    fs.mkdirSync(path.join(t.dir, 'assets', 'output', folder, 'final'), { recursive: true });
    fs.copyFileSync(SAMPLE_PNG, path.join(t.dir, 'assets', 'output', folder, 'final', 'out.png'));
    folders.push(folder);
  }
  for (let i = 0; i < 5; i++) {
    const form = new FormData();
    for (let j = 0; j < 10; j++) form.append('files', new Blob([fs.readFileSync(SAMPLE_PNG)], { type: 'image/png' }), `a-input-${i}-${j}.png`);
    const res = await door.as(A, '/api/admin/assets/upload-inputs', { method: 'POST', body: form });
    inputs.push(...((await res.json()) as { uploaded: string[] }).uploaded);
  }
  expect(inputs).toHaveLength(50);
});

afterAll(async () => {
  await door?.close();
  await t?.stop();
});

async function answer(res: Response, id: string): Promise<string> {
  return `${res.status} ${(await res.text()).split(id).join('<id>')}`;
}

const routes = (type: 'inputs' | 'outputs') => [
  { name: 'file', path: (p: string) => `/api/admin/assets/file?type=${type}&path=${encodeURIComponent(p)}` },
  { name: 'thumbnail', path: (p: string) => `/api/admin/assets/thumbnail?type=${type}&path=${encodeURIComponent(p)}` },
  { name: 'view', path: (p: string) => `/api/engine/view?type=${type === 'inputs' ? 'input' : 'output'}&subfolder=${encodeURIComponent(path.posix.dirname(p) === '.' ? '' : path.posix.dirname(p))}&filename=${encodeURIComponent(path.posix.basename(p))}` },
  { name: 'delete', path: () => '/api/admin/assets/delete', init: (p: string) => ({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ type, files: [p] }) }) },
];

describe("member B and member A's files", () => {
  it('answers every file route for A\'s outputs and inputs exactly as for a missing file', async () => {
    const cases = [
      ...folders.map((f) => ({ type: 'outputs' as const, theirs: `${f}/final/out.png`, name: f, missing: () => `b-none_${crypto.randomBytes(3).toString('hex')}/final/out.png` })),
      ...inputs.map((f) => ({ type: 'inputs' as const, theirs: f, name: f.replace(/\.png$/, ''), missing: () => `none-${crypto.randomBytes(3).toString('hex')}.png` })),
    ];
    for (const c of cases) {
      for (const route of routes(c.type)) {
        const missing = c.missing();
        const missingName = c.type === 'outputs' ? missing.split('/')[0]! : missing.replace(/\.png$/, '');
        const theirs = await answer(await door.as(B, route.path(c.theirs), route.init?.(c.theirs)), c.name);
        const none = await answer(await door.as(B, route.path(missing), route.init?.(missing)), missingName);
        expect(theirs, `${route.name} ${c.theirs}`).toBe(none);
      }
    }
  });

  it('lists none of them for B, all of them for A, and A still reaches them', async () => {
    const list = async (who: typeof A, type: string) => (await (await door.as(who, `/api/admin/assets/${type}`)).json()) as AssetListing;
    const bOut = await list(B, 'outputs');
    const bIn = await list(B, 'inputs');
    expect(bOut.studio_jobs.filter((g) => folders.includes(g.folder))).toEqual([]);
    expect(bIn.files.filter((f) => inputs.includes(f.path))).toEqual([]);
    expect(bOut.total_size + bIn.total_size).toBe(0);
    expect((await list(A, 'outputs')).studio_jobs.map((g) => g.folder).sort()).toEqual([...folders].sort());
    expect((await list(A, 'inputs')).files.map((f) => f.path).sort()).toEqual([...inputs].sort());
    expect((await door.as(A, `/api/admin/assets/file?type=outputs&path=${encodeURIComponent(`${folders[0]}/final/out.png`)}`)).status).toBe(200);
    expect((await door.as(A, `/api/engine/view?type=input&filename=${encodeURIComponent(inputs[0]!)}`)).status).toBe(200);
    expect((await list(null as never, 'outputs')).studio_jobs).toHaveLength(50);
  });

  it("leaves A's files out of B's outputs ZIP and in A's", async () => {
    const zipOf = async (who: typeof A) => Buffer.from(await (await door.as(who, '/api/admin/outputs-zip')).arrayBuffer()).toString('latin1');
    const bZip = await zipOf(B);
    expect(folders.filter((f) => bZip.includes(f))).toEqual([]);
    const aZip = await zipOf(A);
    expect(folders.every((f) => aZip.includes(f))).toBe(true);
  });

  it("runs B's workflow with A's input as with a file that does not exist, and A's with it", async () => {
    const run = (who: typeof A, image: string) => executeRaw((p, init) => door.as(who, p, init), 'image-filter', { params: { _existing_input_image: image } });
    for (const image of inputs.slice(0, 5)) {
      const missing = `none-${crypto.randomBytes(3).toString('hex')}.png`;
      const theirs = await answer(await run(B, image), image);
      expect(theirs).toMatch(/^400 /);
      expect(theirs).toBe(await answer(await run(B, missing), missing));
    }
    expect((await run(A, inputs[0]!)).status).toBe(200);
  });
});

/**
 * Issue 43: `/api/engine/view` while the engine cannot be reached. A file only the engine serves
 * then answers "The engine is not reachable" when it does not exist, so another person's file must
 * answer that too (it answered "File not found", telling a member the file exists).
 */
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../server/contracts/jobs.contract.js';
import { openPersonDoor, person, type PersonDoor } from '../../helpers/as-person.js';
import { jobFixtures } from '../../helpers/job-fixtures.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { until } from '../../helpers/studio-ws.js';

const A = person('user-a');
const B = person('user-b');
let t: TestStudio;
let door: PersonDoor;
const folders: string[] = [];

beforeAll(async () => {
  // An external engine on a port nothing listens on: no folder is Studio's own, every view goes to it.
  t = await startTestStudio({ startEngine: true, engineProbeMs: 200, env: { ENGINE_MODE: 'external' } });
  await until(() => t.studio.engine.state.status === 'unreachable', 'the engine unreachable', 30_000);
  door = await openPersonDoor(t.studio, [A, B]);
  const rows = jobFixtures(t.studio);
  for (let i = 0; i < 10; i++) {
    const folder = `a-job_${i}_${crypto.randomBytes(3).toString('hex')}`;
    const record: JobRecord = {
      prompt_id: crypto.randomUUID(), workflow_id: 'image-filter', workflow_name: 'Image noise and blur', output_dir: folder, status: 'completed',
      queued_at: '2026-11-28T10:00:00', started_at: null, finished_at: '2026-11-28T10:01:00', duration: 1, input_image: null,
      params: {}, seeds: {}, output: { filename: 'out.png', subfolder: `${folder}/final`, type: 'output' }, error: null, owner_id: A.userId,
    };
    rows.insert(record);
    folders.push(folder);
  }
}, 60_000);

afterAll(async () => {
  await door?.close();
  await t?.stop();
});

const view = (folder: string) => `/api/engine/view?type=output&subfolder=${encodeURIComponent(`${folder}/final`)}&filename=out.png`;
const answer = async (res: Response) => `${res.status} ${await res.text()}`;

describe("member B and A's files with the engine down", () => {
  it("answers A's file exactly as a missing one", async () => {
    for (const folder of folders) {
      const theirs = await answer(await door.as(B, view(folder)));
      expect(theirs).toBe(await answer(await door.as(B, view(`b-none_${crypto.randomBytes(3).toString('hex')}`))));
      expect(theirs).toMatch(/^404 .*not reachable/);
    }
    // A, whose file it is, gets the engine's own answer (the same: the engine cannot be reached).
    expect(await answer(await door.as(A, view(folders[0]!)))).toMatch(/^404 .*not reachable/);
  });
});

/**
 * Private work, the attack (issue 43): member B tries member A's job ids on every route a job can
 * be reached by, and each answer must be exactly the answer for an id that never existed (same
 * status, same body once the id itself is set aside). A's 100 jobs are real rows in the real
 * database with real output folders; the owner and A themselves still see and reach them.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord, JobStatus } from '../../../server/contracts/jobs.contract.js';
import { jobFixtures } from '../../helpers/job-fixtures.js';
import { openPersonDoor, person, type PersonDoor } from '../../helpers/as-person.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

const A = person('user-a');
const B = person('user-b');
const ADMIN = person('user-admin', 'admin');
let t: TestStudio;
let door: PersonDoor;
const aIds: string[] = [];
const ownerIds: string[] = [];

function record(id: string, status: JobStatus, ownerId?: string): JobRecord {
  return {
    prompt_id: id, workflow_id: 'image-filter', workflow_name: 'Image noise and blur', output_dir: `job_${id.slice(0, 8)}`, status,
    queued_at: '2026-11-28T10:00:00', started_at: null, finished_at: status === 'queued' ? null : '2026-11-28T10:01:00', duration: 1,
    input_image: null, params: { positive: 'a secret of A' }, seeds: {}, output: status === 'completed' ? { filename: 'out.png', subfolder: `job_${id.slice(0, 8)}/final`, type: 'output' } : null,
    error: null, ...(ownerId ? { owner_id: ownerId } : {}),
  };
}

beforeAll(async () => {
  t = await startTestStudio();
  const rows = jobFixtures(t.studio);
  const output = path.join(t.dir, 'assets', 'output');
  for (let i = 0; i < 100; i++) {
    const id = crypto.randomUUID();
    // Mostly finished; every tenth still queued (cancel and move reach those).
    rows.insert(record(id, i % 10 === 0 ? 'queued' : 'completed', A.userId), Date.now() - 1000 + i);
    fs.mkdirSync(path.join(output, `job_${id.slice(0, 8)}`, 'final'), { recursive: true });
    fs.writeFileSync(path.join(output, `job_${id.slice(0, 8)}`, 'final', 'out.png'), 'not really a png');
    aIds.push(id);
  }
  for (let i = 0; i < 3; i++) {
    const id = crypto.randomUUID();
    rows.insert(record(id, 'completed'));
    ownerIds.push(id);
  }
  door = await openPersonDoor(t.studio, [A, B, ADMIN]);
});

afterAll(async () => {
  await door?.close();
  await t?.stop();
});

const json = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

/** Every route family that names one job. */
const ROUTES: Array<{ name: string; path: (id: string) => string; init?: (id: string) => RequestInit }> = [
  { name: 'job', path: (id) => `/api/admin/history/${id}` },
  { name: 'status', path: (id) => `/api/run/status/${id}` },
  { name: 'result', path: (id) => `/api/run/result/${id}` },
  { name: 'package', path: (id) => `/api/admin/history/${id}/package` },
  { name: 'star', path: (id) => `/api/admin/history/${id}/star`, init: () => json({ starred: true }) },
  { name: 'retry', path: () => '/api/admin/history/retry', init: (id) => json({ prompt_id: id }) },
  { name: 'delete', path: () => '/api/admin/history/delete', init: (id) => json({ prompt_ids: [id] }) },
  { name: 'cancel', path: () => '/api/admin/queue/cancel', init: (id) => json({ prompt_id: id }) },
  { name: 'move', path: () => '/api/admin/queue/move', init: (id) => json({ prompt_id: id, position: 0 }) },
];

/** Status and body, with the asked id replaced so two ids' answers compare. */
async function answer(res: Response, id: string): Promise<string> {
  return `${res.status} ${(await res.text()).split(id).join('<id>')}`;
}

describe("member B and member A's jobs", () => {
  it('answers every route family exactly as for an id that does not exist', async () => {
    for (const route of ROUTES) {
      for (const id of aIds) {
        const missing = crypto.randomUUID();
        const theirs = await answer(await door.as(B, route.path(id), route.init?.(id)), id);
        const none = await answer(await door.as(B, route.path(missing), route.init?.(missing)), missing);
        expect(theirs, `${route.name} ${id}`).toBe(none);
      }
    }
  });

  it('leaves A\'s jobs as they were (nothing starred, deleted, cancelled or retried)', () => {
    for (const id of aIds) expect(t.studio.jobsModule.jobs.get(id)).toMatchObject({ prompt_id: id, owner_id: A.userId, status: expect.stringMatching(/queued|completed/) });
    expect(t.studio.jobsModule.jobs.history({ ownerId: B.userId })).toEqual([]);
  });

  it('lists none of them in history or the queue for B, all of them for A', async () => {
    const ids = (list: unknown) => new Set((list as JobRecord[]).map((j) => j.prompt_id));
    const bHistory = ids(await (await door.as(B, '/api/admin/history')).json());
    const bQueue = ids(await (await door.as(B, '/api/admin/queue')).json());
    expect(aIds.filter((id) => bHistory.has(id) || bQueue.has(id))).toEqual([]);
    expect([...bHistory].filter((id) => ownerIds.includes(id))).toEqual([]);
    const aHistory = ids(await (await door.as(A, '/api/admin/history')).json());
    const aQueue = ids(await (await door.as(A, '/api/admin/queue')).json());
    expect(aIds.every((id) => aHistory.has(id) || aQueue.has(id))).toBe(true);
    // A asking for everyone's still gets only their own.
    expect([...ids(await (await door.as(A, '/api/admin/history?owner=everyone')).json())].some((id) => ownerIds.includes(id))).toBe(false);
  });

  it('lets A reach their own job, its result and its package', async () => {
    const id = aIds[1]!;
    expect(await (await door.as(A, `/api/admin/history/${id}`)).json()).toMatchObject({ prompt_id: id, owner_id: A.userId });
    expect((await door.as(A, `/api/run/result/${id}`)).status).toBe(200);
    expect((await door.as(A, `/api/admin/history/${id}/package`)).status).toBe(200);
    expect((await door.as(B, `/api/admin/history/${id}/package`)).status).toBe(404);
  });
});

describe('the owner and admins', () => {
  it("see everyone's jobs, with owner_id on the others' records only", async () => {
    const history = (await (await door.as(null, '/api/admin/history?limit=500')).json()) as JobRecord[];
    const a = history.filter((j) => aIds.includes(j.prompt_id));
    expect(a).toHaveLength(90);
    expect(a.every((j) => j.owner_id === A.userId)).toBe(true);
    expect(history.filter((j) => ownerIds.includes(j.prompt_id)).every((j) => !('owner_id' in j))).toBe(true);
  });

  it('filter history by owner: mine, everyone, or a person', async () => {
    const get = async (q: string) => ((await (await door.as(ADMIN, `/api/admin/history?limit=500&${q}`)).json()) as JobRecord[]).map((j) => j.prompt_id);
    expect(await get('owner=mine')).toEqual([]);
    expect((await get(`owner=${A.userId}`)).sort()).toEqual(aIds.filter((_, i) => i % 10 !== 0).sort());
    expect((await get('owner=everyone')).length).toBe(93);
    expect((await get('owner=owner')).sort()).toEqual([...ownerIds].sort());
  });
});

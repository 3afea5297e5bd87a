/**
 * Issue 43: an owner's or admin's action on another person's job (delete, cancel, star, move,
 * retry) is an `audit.job_action` event naming who did it and whose job it was; on their own
 * jobs, and a member's on theirs, there is none.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPersonDoor, person, type PersonDoor } from '../../helpers/as-person.js';
import { execute, SAMPLE_PNG, waitForJob } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

const A = person('user-a');
const Admin = person('user-admin', 'admin');
let t: TestStudio;
let door: PersonDoor;

beforeAll(async () => {
  t = await startTestStudio({ startEngine: true });
  await t.studio.engineReady();
  door = await openPersonDoor(t.studio, [A, Admin]);
}, 60_000);

afterAll(async () => {
  await door?.close();
  await t?.stop();
});

const post = (who: typeof A, path: string, body: unknown) => door.as(who, path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
const audit = () => t.studio.events.list({ types: ['audit.job_action'] }).map((e) => e.data);
const run = (who: typeof A) => execute((p, init) => door.as(who, p, init), 'image-filter', { image: { data: fs.readFileSync(SAMPLE_PNG), name: 'a.png' } });

describe("actions on another person's job", () => {
  it('records who did each and whose job it was; not for one\'s own jobs', async () => {
    expect((await post(Admin, '/api/admin/queue/pause', {})).status).toBe(200);
    const [first, second] = [await run(A), await run(A)];
    const own = await run(Admin);
    expect((await post(Admin, '/api/admin/queue/move', { prompt_id: second.prompt_id, position: 0 })).status).toBe(200);
    expect((await post(Admin, '/api/admin/queue/cancel', { prompt_id: first.prompt_id })).status).toBe(200);
    expect((await post(Admin, '/api/admin/queue/cancel', { prompt_id: own.prompt_id })).status).toBe(200);
    expect((await post(Admin, '/api/admin/queue/resume', {})).status).toBe(200);
    await waitForJob((p, init) => door.as(A, p, init), second.prompt_id);
    expect((await post(A, `/api/admin/history/${second.prompt_id}/star`, { starred: true })).status).toBe(200);
    expect((await post(Admin, `/api/admin/history/${second.prompt_id}/star`, { starred: false })).status).toBe(200);
    const retried = await post(Admin, '/api/admin/history/retry', { prompt_id: second.prompt_id });
    expect(retried.status).toBe(200);
    expect((await post(Admin, '/api/admin/history/delete', { prompt_ids: [first.prompt_id, own.prompt_id] })).status).toBe(200);

    const by = { user_id: Admin.userId, name: Admin.name, owner_id: A.userId };
    expect(audit().map(({ action, prompt_id, user_id, name, owner_id }) => ({ action, prompt_id, user_id, name, owner_id })).sort((x, y) => String(x.action).localeCompare(String(y.action)))).toEqual([
      { action: 'cancel', prompt_id: first.prompt_id, ...by },
      { action: 'delete', prompt_id: first.prompt_id, ...by },
      { action: 'move', prompt_id: second.prompt_id, ...by },
      { action: 'retry', prompt_id: second.prompt_id, ...by },
      { action: 'star', prompt_id: second.prompt_id, ...by },
    ]);
  });
});

/**
 * Fair share and the owner's and admins' jobs (issue 43, point 4), through the real front door: a
 * member's jobs are waiting when the owner (API key) and an admin (signed in by password) submit
 * theirs; neither jumps the line, each is placed round robin like anyone's. An admin marks a job
 * urgent by moving it to the front (`POST /api/admin/queue/move`, the one urgent mark; a member
 * may not), and it is the next to start.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedIn, type Auth, type SignedIn } from '../../helpers/attack.js';
import { as, json } from '../../helpers/people.js';
import { execute, plantModels, SHIPPED_MODELS } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { until } from '../../helpers/studio-ws.js';

let t: TestStudio;
let member: SignedIn;
let admin: SignedIn;

beforeAll(async () => {
  t = await startTestStudio({ startEngine: true, env: { STANDIN_STEP_MS: '20', STANDIN_NODE_MS: '40' } });
  await t.studio.engineReady();
  plantModels(t.dir, SHIPPED_MODELS);
  member = await signedIn(t, 'Mia', 'member');
  admin = await signedIn(t, 'Ada', 'admin');
}, 60_000);

afterAll(async () => t?.stop());

const submit = async (auth: Auth | null, tag: string) =>
  (await execute((p, init) => (auth ? as(t, auth, p, init) : t.api(p, init)), 'txt2img-sdxl', { params: { positive: tag, steps: 2 } })).prompt_id;
/** The waiting order as the owner's queue listing shows it. */
const waiting = async () => ((await (await t.api('/api/admin/queue')).json()) as Array<{ prompt_id: string; status: string }>).filter((j) => j.status === 'queued').map((j) => j.prompt_id);

describe("the owner's and admins' jobs", () => {
  it('are placed round robin behind a member\'s waiting jobs, not at the front', async () => {
    expect((await t.api('/api/admin/queue/pause', { method: 'POST' })).status).toBe(200);
    const m: string[] = [];
    for (let i = 0; i < 4; i++) m.push(await submit({ key: member.key.key }, `member ${i}`));
    const owner = [await submit(null, 'owner 0'), await submit(null, 'owner 1')];
    const adm = [await submit(admin.cookie, 'admin 0'), await submit(admin.cookie, 'admin 1')];
    // Each submitter's n-th job goes before the others' (n+1)-th: the member's first stays first.
    expect(await waiting()).toEqual([m[0], owner[0], adm[0], m[1], owner[1], adm[1], m[2], m[3]]);
  });

  it('an admin marks one urgent by moving it to the front; a member may not; it starts next', async () => {
    const order = await waiting();
    const urgent = order.at(-1)!;
    expect((await as(t, member.cookie, '/api/admin/queue/move', json('POST', { prompt_id: urgent, position: 0 }))).status).toBe(403);
    expect((await as(t, admin.cookie, '/api/admin/queue/move', json('POST', { prompt_id: urgent, position: 0 }))).status).toBe(200);
    expect(await waiting()).toEqual([urgent, ...order.slice(0, -1)]);

    const started: string[] = [];
    const off = t.studio.jobsModule.lifecycle.subscribe((change) => {
      if (change.type === 'job.started') started.push(change.job.prompt_id);
    });
    expect((await t.api('/api/admin/queue/resume', { method: 'POST' })).status).toBe(200);
    await until(() => started.length >= 2, 'two jobs started', 20_000);
    off();
    expect(started.slice(0, 2)).toEqual([urgent, order[0]]);
    t.studio.jobsModule.queue.clear();
  }, 30_000);
});

/**
 * The attack of issue 43, live, through Studio's real front door: A and B are members, C a viewer,
 * all added by the owner and signed in by name and password (cookies) or holding personal keys.
 *
 * - B's sockets (one by cookie, one by key) never receive a frame about A's jobs (no job message,
 *   progress, preview, deletion or event) while A's real jobs run, finish and are deleted;
 * - C's runs are 403; a model outside B's allow-list is refused before queueing; B's job N+1 over a
 *   quota of N per hour is 429 with Retry-After; none of them changes the queue or history;
 * - a revoked key and a disabled person are refused at once, their open sockets closed.
 *
 * Order matters (one Studio for the file): each describe goes on from the last.
 */
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../server/contracts/jobs.contract.js';
import { signedIn, type Auth, type SignedIn } from '../../helpers/attack.js';
import { as, json, passwordLogin } from '../../helpers/people.js';
import { execute, executeRaw, plantModels, SHIPPED_MODELS, waitForJob } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { decodeStudioPreview, until } from '../../helpers/studio-ws.js';

/** A socket opened as someone, keeping every frame it receives. */
interface Watched {
  ws: WebSocket;
  text: Array<{ type: string; data: Record<string, unknown> }>;
  binary: Buffer[];
  closed: number | null;
}

let t: TestStudio;
let a: SignedIn;
let b: SignedIn;
let c: SignedIn;
const sockets: Record<string, Watched> = {};
const aJobs: string[] = [];
const bJobs: string[] = [];

function open(auth: Auth): Promise<Watched> {
  return new Promise((resolve, reject) => {
    const headers = 'cookie' in auth ? { Cookie: auth.cookie } : { 'X-API-Key': auth.key };
    const ws = new WebSocket(`${t.url.replace('http', 'ws')}/ws`, { headers });
    const watched: Watched = { ws, text: [], binary: [], closed: null };
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (isBinary) watched.binary.push(data);
      else watched.text.push(JSON.parse(data.toString('utf8')) as Watched['text'][number]);
    });
    ws.on('close', (code) => (watched.closed = code));
    ws.on('open', () => resolve(watched));
    ws.on('error', reject);
  });
}

/** Every frame of `socket` that names `promptId`: text of any type (the event log's too) or a preview. */
function about(socket: Watched, promptId: string): unknown[] {
  return [...socket.text.filter((f) => JSON.stringify(f).includes(promptId)), ...socket.binary.filter((f) => decodeStudioPreview(f).meta.prompt_id === promptId)];
}

const api = (auth: Auth) => (pathname: string, init?: RequestInit) => as(t, auth, pathname, init);
const jobRows = () => (t.studio.db.prepare('SELECT COUNT(*) AS n FROM jobs').get() as { n: number }).n;
const ids = async (auth: Auth, route: string) => ((await (await as(t, auth, route)).json()) as JobRecord[]).map((j) => j.prompt_id).sort();
const sdxl = { params: { positive: 'a lighthouse', steps: 2 } };

beforeAll(async () => {
  t = await startTestStudio({ startEngine: true, env: { STANDIN_STEP_MS: '40', STANDIN_NODE_MS: '60' } });
  await t.studio.engineReady();
  plantModels(t.dir, SHIPPED_MODELS);
  a = await signedIn(t, 'Ann', 'member');
  b = await signedIn(t, 'Ben', 'member', { quotas: { jobs_per_hour: 2 }, allow: { models: ['checkpoints/'] } });
  c = await signedIn(t, 'Cat', 'viewer');
  sockets.aCookie = await open(a.cookie);
  sockets.bCookie = await open(b.cookie);
  sockets.bKey = await open({ key: b.key.key });
  sockets.c = await open(c.cookie);
}, 60_000);

afterAll(async () => {
  for (const s of Object.values(sockets)) s.ws.terminate();
  await t?.stop();
});

describe("B's sockets and A's jobs", () => {
  beforeAll(async () => {
    for (const auth of [a.cookie, { key: a.key.key }]) {
      const { prompt_id } = await execute(api(auth), 'txt2img-sdxl', sdxl);
      await waitForJob(api(a.cookie), prompt_id);
      aJobs.push(prompt_id);
    }
    expect((await as(t, a.cookie, '/api/admin/history/delete', json('POST', { prompt_ids: [aJobs[0]] }))).status).toBe(200);
    // A's socket has had every frame about A's last job: B's would have had them by now too.
    await until(() => sockets.aCookie!.text.filter((f) => f.type === 'job.deleted' && JSON.stringify(f).includes(aJobs[0]!)).length > 0, 'job.deleted on A');
  }, 60_000);

  it('B receives no frame about them, by cookie or by key; C neither', () => {
    for (const name of ['bCookie', 'bKey', 'c']) for (const id of aJobs) expect(about(sockets[name]!, id), `${name} ${id}`).toEqual([]);
  });

  it('while A receives all of it: queued, started, progress, previews, completed, deleted, events', () => {
    const types = new Set(sockets.aCookie!.text.filter((f) => JSON.stringify(f).includes(aJobs[0]!)).map((f) => f.type));
    expect([...types]).toEqual(expect.arrayContaining(['job.queued', 'job.started', 'job.progress', 'job.completed', 'job.deleted', 'event']));
    expect(sockets.aCookie!.binary.some((f) => decodeStudioPreview(f).meta.prompt_id === aJobs[1])).toBe(true);
  });
});

describe('what each may run', () => {
  it("refuses C's runs with 403, changing nothing", async () => {
    const before = jobRows();
    expect((await t.api('/api/admin/presets', json('POST', { id: 'house', shared: true, workflow: { workflow_id: 'txt2img-sdxl', params: sdxl.params } }))).status).toBe(200);
    for (const auth of [c.cookie, { key: c.key.key }]) {
      expect((await executeRaw(api(auth), 'txt2img-sdxl', sdxl)).status).toBe(403);
      expect((await as(t, auth, '/api/admin/presets/house/run', json('POST', {}))).status).toBe(403);
      expect((await as(t, auth, '/api/admin/history/retry', json('POST', { prompt_id: aJobs[1] }))).status).toBe(403);
      expect((await as(t, auth, '/api/run/txt2img-sdxl/build', json('POST', sdxl))).status).toBe(403);
    }
    expect(jobRows()).toBe(before);
    expect(await ids(c.cookie, '/api/admin/history')).toEqual([]);
  });

  it("refuses a model outside B's allow-list with 403 naming it, before queueing", async () => {
    const before = { rows: jobRows(), queue: await ids(b.cookie, '/api/admin/queue'), history: await ids(b.cookie, '/api/admin/history') };
    const refused = await executeRaw(api(b.cookie), 'txt2img-sdxl-lora', { params: { ...sdxl.params, upscale: true } });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/You may not use the model "RealESRGAN_x4plus\.pth"/);
    expect({ rows: jobRows(), queue: await ids(b.cookie, '/api/admin/queue'), history: await ids(b.cookie, '/api/admin/history') }).toEqual(before);
  });

  it("answers B's job N+1 over N per hour with 429 and Retry-After", async () => {
    for (const auth of [b.cookie, { key: b.key.key }]) {
      const { prompt_id } = await execute(api(auth), 'txt2img-sdxl', sdxl);
      bJobs.push(prompt_id);
    }
    for (const id of bJobs) await waitForJob(api(b.cookie), id);
    const before = jobRows();
    const refused = await executeRaw(api({ key: b.key.key }), 'txt2img-sdxl', sdxl);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(3500);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/^2 jobs per hour reached; you can run again at \d\d:\d\d/);
    expect(jobRows()).toBe(before);
    // B's own jobs did reach B's sockets, and none of them A's.
    for (const id of bJobs) {
      expect(about(sockets.bCookie!, id).length).toBeGreaterThan(2);
      expect(about(sockets.aCookie!, id)).toEqual([]);
    }
  }, 60_000);
});

describe('ending access', () => {
  it('a revoked key is refused at once and its socket closed; the cookie goes on', async () => {
    expect((await as(t, b.cookie, `/api/me/keys/${b.key.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await as(t, { key: b.key.key }, '/api/admin/history')).status).toBe(401);
    await until(() => sockets.bKey!.closed !== null, 'the key socket closed');
    expect(sockets.bKey!.closed).toBe(4001);
    await expect(open({ key: b.key.key })).rejects.toThrow(/401/);
    expect(sockets.bCookie!.closed).toBeNull();
    expect((await as(t, b.cookie, '/api/admin/history')).status).toBe(200);
  });

  it('a disabled person is refused at once, every socket closed, and cannot sign in again', async () => {
    const other = await open({ key: a.key.key });
    expect((await t.api(`/api/admin/users/${b.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await as(t, b.cookie, '/api/admin/history')).status).toBe(401);
    await until(() => sockets.bCookie!.closed !== null, 'the cookie socket closed');
    expect(sockets.bCookie!.closed).toBe(4001);
    expect((await passwordLogin(t, b.name, b.password)).status).toBe(401);
    await expect(open(b.cookie)).rejects.toThrow(/401/);
    // Nobody else's socket was touched.
    expect(sockets.aCookie!.closed).toBeNull();
    expect(other.closed).toBeNull();
    other.ws.terminate();
  });
});

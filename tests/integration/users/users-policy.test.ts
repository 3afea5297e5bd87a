/**
 * Who may call what (issue 43, `server/http/route-policy.ts`), as a member's and a viewer's keys
 * would try it: viewers and `read` keys run nothing; members and keys without `admin` scope reach
 * no settings, node packages, engines, updates or people; a key never reaches past its person's
 * role. Every admin change is audited with who made it, a refused one too; a member's event log
 * and WebSocket carry only their own events.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StudioEvent } from '../../../server/contracts/events.contract.js';
import { addPerson, as, json, makeKey, openSocket, signIn, type Person } from '../../helpers/people.js';
import { until } from '../../helpers/studio-ws.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let t: TestStudio;
let member: Person;
let viewer: Person;
let admin: Person;
let memberCookie: string;
let viewerCookie: string;
let adminCookie: string;
beforeAll(async () => {
  t = await startTestStudio();
  member = await addPerson(t, 'Mia', 'member');
  viewer = await addPerson(t, 'Vic', 'viewer');
  admin = await addPerson(t, 'Ada', 'admin');
  memberCookie = await signIn(t, member);
  viewerCookie = await signIn(t, viewer);
  adminCookie = await signIn(t, admin);
});
afterAll(async () => t.stop());

/** Every route that runs something (the policy's `run` family): a `read` actor gets 403 on each. */
const RUNS: Array<[string, string, unknown?]> = [
  ['POST', '/api/run/txt2img/execute'],
  ['POST', '/api/run/txt2img/build'],
  ['POST', '/api/run/upload-image'],
  ['POST', '/api/admin/presets/p1/run'],
  ['POST', '/api/admin/history/retry', { prompt_id: 'x' }],
  ['POST', '/api/admin/queue/cancel', { prompt_id: 'x' }],
  ['POST', '/api/admin/llm/chat', { messages: [] }],
];

/** Admin-only families: members, viewers and non-admin keys get 403. */
const ADMIN_ONLY: Array<[string, string, unknown?]> = [
  ['GET', '/api/admin/settings'],
  ['PUT', '/api/admin/settings', { max_concurrent: 2 }],
  ['GET', '/api/admin/settings/env'],
  ['PUT', '/api/admin/settings/env', { key: 'LOG_LEVEL', value: 'debug' }],
  ['POST', '/api/admin/nodes/install', { url: 'https://example.invalid/x.git' }],
  ['GET', '/api/admin/engines'],
  ['POST', '/api/admin/engines', { url: 'http://127.0.0.1:1' }],
  ['POST', '/api/admin/system/update', {}],
  ['POST', '/api/admin/system/restart'],
  ['POST', '/api/admin/models/download/x.safetensors'],
  ['GET', '/api/admin/users'],
  ['POST', '/api/admin/users', { name: 'Zed', role: 'admin', password: 'long enough pw' }],
  ['POST', '/api/admin/llm/start', { model: 'x.gguf' }],
  // Express matches routes case-blind and with a trailing slash: so does the policy.
  ['GET', '/API/ADMIN/SETTINGS/ENV/'],
];

function call(auth: { cookie: string } | { key: string }, [method, path, body]: [string, string, unknown?]): Promise<Response> {
  return as(t, auth, path, body === undefined ? { method } : json(method, body));
}

describe('the route policy', () => {
  it('refuses every run route to a viewer and to a read key, with 403 {detail}', async () => {
    const readKey = await makeKey(t, memberCookie, 'read');
    for (const auth of [{ cookie: viewerCookie }, { key: readKey.key }]) {
      for (const route of RUNS) {
        const res = await call(auth, route);
        expect(res.status, `${route[0]} ${route[1]}`).toBe(403);
        expect(((await res.json()) as { detail: string }).detail).toMatch(/run permission/);
      }
    }
    // The member's own session passes the policy (the route itself answers: no such workflow).
    expect((await call({ cookie: memberCookie }, RUNS[0]!)).status).not.toBe(403);
    expect((await call({ cookie: memberCookie }, ['GET', '/api/admin/history'])).status).toBe(200);
  });

  it('refuses admin families to members, viewers and to an admin through a run key', async () => {
    const adminRunKey = await makeKey(t, adminCookie, 'run');
    for (const auth of [{ cookie: memberCookie }, { cookie: viewerCookie }, { key: adminRunKey.key }]) {
      for (const route of ADMIN_ONLY) expect((await call(auth, route)).status, `${route[0]} ${route[1]}`).toBe(403);
    }
    // An admin (session or admin key) and the owner reach them.
    const adminKey = await makeKey(t, adminCookie, 'admin');
    expect((await call({ cookie: adminCookie }, ['GET', '/api/admin/settings'])).status).toBe(200);
    expect((await call({ key: adminKey.key }, ['GET', '/api/admin/settings/env'])).status).toBe(200);
    expect((await t.api('/api/admin/settings/env')).status).toBe(200);
    // The owner's own key stays the owner's: an admin cannot change it (and take the owner's place).
    const takeover = await call({ key: adminKey.key }, ['PUT', '/api/admin/settings/env', { key: 'API_KEY', value: 'admin-chose-this-key-123' }]);
    expect(takeover.status).toBe(403);
    expect(((await takeover.json()) as { detail: string }).detail).toBe('Only the owner changes API_KEY');
    expect((await t.api('/api/me')).status).toBe(200);
  });

  it('gives a member nothing of an admin route spelled otherwise (encoded, doubled slashes, dot segments)', async () => {
    for (const path of ['/api/admin/%73ettings', '/api/admin/settings%2Fenv', '//api/admin/settings', '/api/admin//settings', '/api/admin/history/../settings', '/api/admin/settings;x', '/api/admin/settings.json']) {
      const res = await as(t, { cookie: memberCookie }, path);
      // A path outside `/api/` (`//api/…`) is a page: the web UI's shell, never the settings.
      if (res.status === 200) expect(res.headers.get('content-type'), path).toMatch(/^text\/html/);
      else expect([403, 404], path).toContain(res.status);
      expect(await res.text(), path).not.toMatch(/max_concurrent|API_KEY/);
    }
  });

  it('keeps a key within its person: a member makes no admin key, a viewer only read keys', async () => {
    expect((await as(t, { cookie: memberCookie }, '/api/me/keys', json('POST', { name: 'x', scope: 'admin' }))).status).toBe(403);
    expect((await as(t, { cookie: memberCookie }, '/api/me/keys', json('POST', { name: 'x', scope: 'run' }))).status).toBe(200);
    expect((await as(t, { cookie: viewerCookie }, '/api/me/keys', json('POST', { name: 'x', scope: 'run' }))).status).toBe(403);
    const readKey = await makeKey(t, viewerCookie, 'read');
    // A read key makes read keys only: it cannot mint a wider one.
    const memberRead = await makeKey(t, memberCookie, 'read');
    expect((await as(t, { key: memberRead.key }, '/api/me/keys', json('POST', { name: 'y', scope: 'run' }))).status).toBe(403);
    expect((await as(t, { key: readKey.key }, '/api/me')).status).toBe(200);
    expect(await (await as(t, { key: memberRead.key }, '/api/me')).json()).toMatchObject({ id: member.id, scope: 'read' });
  });

  it('answers bad key bodies with 400', async () => {
    expect((await as(t, { cookie: memberCookie }, '/api/me/keys', json('POST', { name: '', scope: 'run' }))).status).toBe(400);
    expect((await as(t, { cookie: memberCookie }, '/api/me/keys', json('POST', { name: 'k', scope: 'root' }))).status).toBe(400);
  });
});

describe('the audit and who sees which events', () => {
  it('records each admin change with who made it, and a refused one with its 403', async () => {
    expect((await t.api('/api/admin/settings', json('PUT', { max_concurrent: 3 }))).status).toBe(200);
    await call({ cookie: memberCookie }, ['PUT', '/api/admin/settings', { max_concurrent: 9 }]);
    await until(() => t.studio.events.list({ types: ['audit.admin_request'] }).some((e) => e.data.user_id === member.id), 'the refused change audited');
    const audit = t.studio.events.list({ types: ['audit.admin_request'] }).filter((e) => e.data.path === '/api/admin/settings');
    expect(audit.map((e) => e.data)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ user_id: 'owner', method: 'PUT', status: 200 }),
        expect.objectContaining({ user_id: member.id, name: 'Mia', method: 'PUT', status: 403 }),
      ]),
    );
    // A person added by the admin names the admin.
    await as(t, { cookie: adminCookie }, '/api/admin/users', json('POST', { name: 'Ned', role: 'viewer', password: 'long enough pw' }));
    expect(t.studio.events.list({ types: ['users.added'] }).at(-1)!.data).toMatchObject({ user_id: admin.id, name: 'Ada', target_name: 'Ned', role: 'viewer' });
  });

  it("shows a member only events carrying their id, never system ones; owners filter by person", async () => {
    t.studio.events.emit('engine.state', 'info', 'a system event', { status: 'running' });
    t.studio.events.emit('job.completed', 'success', "someone else's job", { user_id: 'u_someoneelse', prompt_id: 'p0' });
    t.studio.events.emit('job.completed', 'success', "Mia's job", { user_id: member.id, prompt_id: 'p1' });
    const mine = (await (await as(t, { cookie: memberCookie }, '/api/admin/events?limit=1000&user=owner')).json()) as StudioEvent[];
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((e) => e.data.user_id === member.id)).toBe(true);
    expect(mine.map((e) => e.message)).toContain("Mia's job");
    const all = (await (await t.api('/api/admin/events?limit=1000')).json()) as StudioEvent[];
    expect(all.map((e) => e.message)).toEqual(expect.arrayContaining(['a system event', "someone else's job", "Mia's job"]));
    const filtered = (await (await t.api(`/api/admin/events?limit=1000&user=${member.id}`)).json()) as StudioEvent[];
    expect(filtered.map((e) => e.id)).toEqual(mine.map((e) => e.id));
  });

  it("pushes a member's socket only their own events; the owner's socket gets all", async () => {
    const memberSocket = await openSocket(t, { cookie: memberCookie });
    const ownerSocket = await openSocket(t, { key: t.apiKey });
    t.studio.events.emit('engine.state', 'info', 'system, live', {});
    t.studio.events.emit('job.completed', 'success', 'theirs, live', { user_id: 'u_someoneelse' });
    t.studio.events.emit('job.completed', 'success', 'Mia, live', { user_id: member.id });
    const messages = (s: typeof memberSocket) => s.frames.filter((f) => f.type === 'event').map((f) => f.data.message);
    await until(() => messages(ownerSocket).includes('Mia, live') && messages(memberSocket).includes('Mia, live'), 'both sockets got the last event');
    expect(messages(ownerSocket)).toEqual(expect.arrayContaining(['system, live', 'theirs, live', 'Mia, live']));
    expect(messages(memberSocket)).toEqual(['Mia, live']);
    memberSocket.ws.close();
    ownerSocket.ws.close();
  });
});

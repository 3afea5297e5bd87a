/**
 * People of one Studio (issue 43): the owner and admins add, list, change and disable people;
 * bodies are checked with clear 400/409 answers; passwords and personal keys are stored hashed
 * (read straight from the SQLite file); an admin cannot touch the owner, nobody adds an owner.
 */
import Database from 'better-sqlite3';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserView } from '../../../server/contracts/users.contract.js';
import { addPerson, as, json, makeKey, signIn } from '../../helpers/people.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let t: TestStudio;
beforeAll(async () => {
  t = await startTestStudio();
});
afterAll(async () => t.stop());

const post = (body: unknown) => t.api('/api/admin/users', json('POST', body));
const detail = async (res: Response) => ((await res.json()) as { detail: string }).detail;

describe('adding and listing people', () => {
  it('adds a person with quotas and an allow-list, returns them without the password, and lists them', async () => {
    const quotas = { jobs_per_hour: 5, jobs_per_day: 20, waiting: 2, gpu_seconds_per_day: 3600 };
    const allow = { workflows: ['txt2img'], models: ['checkpoints/sdxl.safetensors', 'loras'] };
    const res = await post({ name: 'Ada', role: 'member', password: 'correct horse battery', quotas, allow });
    expect(res.status).toBe(200);
    const ada = (await res.json()) as UserView & Record<string, unknown>;
    expect(ada).toMatchObject({ name: 'Ada', role: 'member', quotas, allow, disabled: false });
    expect(ada.id).toMatch(/^u_[0-9a-f]{12}$/);
    expect(JSON.stringify(ada)).not.toContain('correct horse');
    expect(Object.keys(ada)).not.toContain('password_hash');
    const list = (await (await t.api('/api/admin/users')).json()) as { users: UserView[] };
    expect(list.users.find((u) => u.id === ada.id)).toEqual(ada);
    // Absent quotas and allow mean no limit.
    const bob = (await (await post({ name: 'Bob', role: 'viewer', password: 'another password' })).json()) as UserView;
    expect(bob).toMatchObject({ quotas: null, allow: null });
  });

  it('answers bad bodies with 400 {detail} naming the field', async () => {
    expect(await detail(await post({ name: 'Cy', role: 'member', password: 'short' }))).toMatch(/password.*8/);
    expect(await detail(await post({ name: 'Cy', role: 'boss', password: 'long enough pw' }))).toMatch(/role/);
    expect(await detail(await post({ name: '', role: 'member', password: 'long enough pw' }))).toMatch(/name/);
    expect(await detail(await post({ name: 'Cy', role: 'member', password: 'long enough pw', quotas: { jobs_per_hour: -1 } }))).toMatch(/quotas\.jobs_per_hour/);
    expect(await detail(await post({ name: 'Cy', role: 'member', password: 'long enough pw', extra: 1 }))).toBeTruthy();
    const notObject = await t.api('/api/admin/users', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '[1]' });
    expect(notObject.status).toBe(400);
    // Nobody adds another owner.
    const owner = await post({ name: 'Cy', role: 'owner', password: 'long enough pw' });
    expect(owner.status).toBe(400);
    expect((await (await t.api('/api/admin/users')).json()) as { users: UserView[] }).not.toMatchObject({ users: expect.arrayContaining([expect.objectContaining({ name: 'Cy' })]) });
  });

  it('keeps names unique whatever their case (409), and "owner" for the holder of API_KEY', async () => {
    await addPerson(t, 'Dora', 'member');
    const twin = await post({ name: 'dORA', role: 'viewer', password: 'long enough pw' });
    expect(twin.status).toBe(409);
    expect(await detail(twin)).toMatch(/exists already/);
    expect((await post({ name: 'Owner', role: 'admin', password: 'long enough pw' })).status).toBe(409);
    const eve = await addPerson(t, 'Eve', 'member');
    expect((await t.api(`/api/admin/users/${eve.id}`, json('PATCH', { name: 'DORA' }))).status).toBe(409);
    expect((await t.api(`/api/admin/users/${eve.id}`, json('PATCH', { name: 'EVE' }))).status).toBe(200);
  });

  it('changes role, quotas and allow-list; disabling keeps the record', async () => {
    const fay = await addPerson(t, 'Fay', 'viewer');
    const changed = await t.api(`/api/admin/users/${fay.id}`, json('PATCH', { role: 'member', quotas: { waiting: 1 }, allow: { workflows: ['a'] } }));
    expect(await changed.json()).toMatchObject({ role: 'member', quotas: { waiting: 1 }, allow: { workflows: ['a'] } });
    const cleared = await t.api(`/api/admin/users/${fay.id}`, json('PATCH', { quotas: null }));
    expect(await cleared.json()).toMatchObject({ quotas: null, allow: { workflows: ['a'] } });
    const gone = await t.api(`/api/admin/users/${fay.id}`, { method: 'DELETE' });
    expect(await gone.json()).toMatchObject({ id: fay.id, disabled: true });
    const list = (await (await t.api('/api/admin/users')).json()) as { users: UserView[] };
    expect(list.users.find((u) => u.id === fay.id)).toMatchObject({ disabled: true, name: 'Fay' });
    expect((await t.api('/api/admin/users/u_000000000000', json('PATCH', { role: 'viewer' }))).status).toBe(404);
  });

  it('a new password ends the sessions signed in with the old one', async () => {
    const kim = await addPerson(t, 'Kim', 'member');
    const cookie = await signIn(t, kim);
    expect((await as(t, { cookie }, '/api/me')).status).toBe(200);
    expect((await t.api(`/api/admin/users/${kim.id}`, json('PATCH', { password: 'a brand new password' }))).status).toBe(200);
    expect((await as(t, { cookie }, '/api/me')).status).toBe(401);
    expect((await signIn(t, { ...kim, password: 'a brand new password' })).startsWith('session=')).toBe(true);
    expect(t.studio.events.list({ types: ['users.changed'] }).at(-1)!.data).toMatchObject({ user_id: 'owner', target_id: kim.id, fields: ['password'] });
  });

  it('lets an admin manage people but not change or disable the owner, nor disable themselves', async () => {
    const admin = await addPerson(t, 'Gus', 'admin');
    const cookie = await signIn(t, admin);
    const added = await as(t, { cookie }, '/api/admin/users', json('POST', { name: 'Hal', role: 'member', password: 'long enough pw' }));
    expect(added.status).toBe(200);
    expect((await as(t, { cookie }, '/api/admin/users/owner', { method: 'DELETE' })).status).toBe(403);
    expect((await as(t, { cookie }, '/api/admin/users/owner', json('PATCH', { role: 'member' }))).status).toBe(403);
    expect((await as(t, { cookie }, `/api/admin/users/${admin.id}`, { method: 'DELETE' })).status).toBe(409);
    expect((await as(t, { cookie }, `/api/admin/users/${admin.id}`, json('PATCH', { disabled: true }))).status).toBe(409);
    // The owner's key still works.
    expect((await t.api('/api/admin/settings')).status).toBe(200);
  });
});

describe('secrets at rest', () => {
  it('stores passwords as salted scrypt hashes and personal keys as SHA-256, never in clear', async () => {
    const ivy = await addPerson(t, 'Ivy', 'member');
    const twin = await addPerson(t, 'Ivy2', 'member');
    const cookie = await signIn(t, ivy);
    const { key } = await makeKey(t, cookie, 'run');
    const db = new Database(path.join(t.dir, 'db', 'studio.db'), { readonly: true });
    try {
      const dump = JSON.stringify([db.prepare('SELECT * FROM users').all(), db.prepare('SELECT * FROM user_keys').all()]);
      expect(dump).not.toContain(ivy.password);
      expect(dump).not.toContain(key);
      const rows = db.prepare('SELECT id, password_hash FROM users WHERE id IN (?, ?)').all(ivy.id, twin.id) as Array<{ password_hash: string }>;
      for (const row of rows) expect(row.password_hash).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
      // The salt differs even for the same kind of password.
      expect(rows[0]!.password_hash.split('$')[4]).not.toBe(rows[1]!.password_hash.split('$')[4]);
      const stored = db.prepare('SELECT prefix, hash FROM user_keys WHERE user_id = ?').get(ivy.id) as { prefix: string; hash: string };
      expect(stored.hash).toMatch(/^[0-9a-f]{64}$/);
      expect(key.startsWith(stored.prefix)).toBe(true);
      expect(stored.prefix.length).toBeLessThan(12);
    } finally {
      db.close();
    }
  });
});

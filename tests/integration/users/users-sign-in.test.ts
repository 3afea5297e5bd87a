/**
 * Signing in as a person (issue 43): name and password give a session cookie that acts as that
 * person; wrong passwords are throttled per person and per address by the key limiter; disabling
 * a person or revoking their key refuses the next request and closes their open sockets at once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { MeView } from '../../../server/contracts/users.contract.js';
import { SESSION_ENDED_CODE } from '../../../server/http/ws-hub.js';
import { addPerson, as, json, makeKey, openSocket, passwordLogin, signIn } from '../../helpers/people.js';
import { until } from '../../helpers/studio-ws.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let t: TestStudio;
afterEach(async () => t.stop());

describe('signing in by name and password', () => {
  it('sets a session cookie that acts as that person, and records the sign-in with its address', async () => {
    t = await startTestStudio();
    const ann = await addPerson(t, 'Ann', 'member', { quotas: { waiting: 3 } });
    const res = await passwordLogin(t, 'ann', ann.password);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', redirect: '/home' });
    const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
    const me = (await (await as(t, { cookie }, '/api/me')).json()) as MeView;
    expect(me).toEqual({ id: ann.id, name: 'Ann', role: 'member', scope: null, quotas: { waiting: 3 }, allow: null, use: { jobs_this_hour: 0, jobs_today: 0, waiting: 0, gpu_seconds_today: 0 } });
    // The owner's key is still the owner.
    expect(await (await t.api('/api/me')).json()).toMatchObject({ id: 'owner', role: 'owner' });
    const signedIn = t.studio.events.list({ types: ['auth.signed_in'] });
    expect(signedIn.at(-1)!.data).toMatchObject({ user_id: ann.id, name: 'Ann', address: '127.0.0.1', via: 'password' });
  });

  it('answers a wrong password or unknown name with 401, recorded as a failed sign-in', async () => {
    t = await startTestStudio();
    await addPerson(t, 'Ben', 'member');
    const wrong = await passwordLogin(t, 'Ben', 'not his password');
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ detail: 'Wrong name or password' });
    expect(wrong.headers.get('set-cookie')).toBeNull();
    expect((await passwordLogin(t, 'Nobody', 'whatever it is')).status).toBe(401);
    const failed = t.studio.events.list({ types: ['auth.sign_in_failed'] });
    expect(failed.map((e) => e.data)).toEqual([expect.objectContaining({ address: '127.0.0.1', tried_name: 'Ben' }), expect.objectContaining({ tried_name: 'Nobody' })]);
    expect(JSON.stringify(failed)).not.toContain('not his password');
  });

  it('throttles wrong passwords for one person, even with the right password after, with 429 and Retry-After', async () => {
    t = await startTestStudio();
    const cat = await addPerson(t, 'Cat', 'member');
    // Spelled ten ways (case, full-width letters): still one person to the limiter.
    const spellings = ['Cat', 'CAT', 'cat', ' cat ', 'ＣＡＴ', 'ｃａｔ', 'Cat', 'cAt', 'caT', 'CaT'];
    for (const [i, spelling] of spellings.entries()) expect((await passwordLogin(t, spelling, `guess-${i}-xxxx`)).status).toBe(401);
    const held = await passwordLogin(t, 'CAT', cat.password);
    expect(held.status).toBe(429);
    expect(Number(held.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(t.studio.events.list({ types: ['auth.throttled'] }).at(-1)!.data).toMatchObject({ scope: 'person', tried_name: 'cat' });
  });

  it('throttles one address guessing many names, and counts its wrong API keys on the same limiter', async () => {
    t = await startTestStudio();
    const dan = await addPerson(t, 'Dan', 'member');
    for (let i = 0; i < 10; i++) expect((await passwordLogin(t, `name-${i}`, 'guess-xxxxxxxx')).status).toBe(401);
    expect((await passwordLogin(t, 'Dan', dan.password)).status).toBe(429);
    const keyLogin = await fetch(`${t.url}/api/auth/login`, json('POST', { api_key: t.apiKey }));
    expect(keyLogin.status).toBe(429);
  });
});

describe('ending access', () => {
  it('disabling a person refuses their next request (cookie and key) and closes their sockets at once', async () => {
    t = await startTestStudio();
    const eva = await addPerson(t, 'Eva', 'member');
    const bystander = await addPerson(t, 'Flo', 'member');
    const cookie = await signIn(t, eva);
    const { key } = await makeKey(t, cookie, 'run');
    const bystanderCookie = await signIn(t, bystander);
    const byCookie = await openSocket(t, { cookie });
    const byKey = await openSocket(t, { key });
    const theirs = await openSocket(t, { cookie: bystanderCookie });
    expect((await as(t, { cookie }, '/api/me')).status).toBe(200);
    expect((await t.api(`/api/admin/users/${eva.id}`, { method: 'DELETE' })).status).toBe(200);
    await until(() => byCookie.closed && byKey.closed, "the disabled person's sockets closed");
    expect(byCookie.closed!.code).toBe(SESSION_ENDED_CODE);
    expect(byKey.closed!.code).toBe(SESSION_ENDED_CODE);
    expect((await as(t, { cookie }, '/api/me')).status).toBe(401);
    expect((await as(t, { key }, '/api/me')).status).toBe(401);
    expect((await passwordLogin(t, eva.name, eva.password)).status).toBe(401);
    await expect(openSocket(t, { cookie })).rejects.toThrow(/401/);
    expect(theirs.closed).toBeNull();
    // Enabled again: old sessions stay ended, a new sign-in works.
    expect((await t.api(`/api/admin/users/${eva.id}`, json('PATCH', { disabled: false }))).status).toBe(200);
    expect((await as(t, { cookie }, '/api/me')).status).toBe(401);
    expect((await as(t, { cookie: await signIn(t, eva) }, '/api/me')).status).toBe(200);
    theirs.ws.close();
  });

  it('revoking a key refuses it at once and closes the sockets it opened, not the others', async () => {
    t = await startTestStudio();
    const gil = await addPerson(t, 'Gil', 'member');
    const cookie = await signIn(t, gil);
    const first = await makeKey(t, cookie, 'read', 'script');
    const second = await makeKey(t, cookie, 'run', 'extension');
    const listed = (await (await as(t, { cookie }, '/api/me/keys')).json()) as { keys: Array<Record<string, unknown>> };
    expect(listed.keys.map((k) => [k.id, k.name, k.scope])).toEqual([[first.id, 'script', 'read'], [second.id, 'extension', 'run']]);
    expect(JSON.stringify(listed)).not.toContain(first.key);
    expect((await as(t, { key: first.key }, '/api/me')).status).toBe(200);
    const used = (await (await as(t, { cookie }, '/api/me/keys')).json()) as { keys: Array<{ id: string; last_used_at: string | null }> };
    expect(used.keys.find((k) => k.id === first.id)!.last_used_at).not.toBeNull();
    const sockFirst = await openSocket(t, { key: first.key });
    const sockSecond = await openSocket(t, { key: second.key });
    const sockSession = await openSocket(t, { cookie });
    expect((await as(t, { cookie }, `/api/me/keys/${first.id}`, { method: 'DELETE' })).status).toBe(200);
    await until(() => sockFirst.closed, "the revoked key's socket closed");
    expect((await as(t, { key: first.key }, '/api/me')).status).toBe(401);
    expect((await as(t, { key: second.key }, '/api/me')).status).toBe(200);
    expect(sockSecond.closed).toBeNull();
    expect(sockSession.closed).toBeNull();
    // Someone else's key id answers like a missing one.
    const other = await addPerson(t, 'Hep', 'member');
    expect((await as(t, { cookie: await signIn(t, other) }, `/api/me/keys/${second.id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await as(t, { key: second.key }, '/api/me')).status).toBe(200);
    const audit = t.studio.events.list({ types: ['users.key.created', 'users.key.revoked'] });
    expect(audit.map((e) => [e.type, e.data.user_id, e.data.key_id])).toEqual([
      ['users.key.created', gil.id, first.id],
      ['users.key.created', gil.id, second.id],
      ['users.key.revoked', gil.id, first.id],
    ]);
    sockSecond.ws.close();
    sockSession.ws.close();
  });
});

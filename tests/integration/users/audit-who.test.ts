/**
 * The audit names who changed settings, node packages and engines, and which one (issue 43,
 * point 6): an admin signed in by password makes each change; every one is an `audit.admin_request`
 * event with the admin's id and name and what it was about (the setting's name, the package's or
 * engine's URL), never a settings value or a password in a URL; the owner's Events filter by
 * that person finds them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StudioEvent } from '../../../server/contracts/events.contract.js';
import { addPerson, as, json, signIn, type Person } from '../../helpers/people.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { until } from '../../helpers/studio-ws.js';

let t: TestStudio;
let ada: Person;
let cookie: { cookie: string };
const SECRET = 'very-secret-value-0123456789';

beforeAll(async () => {
  t = await startTestStudio();
  ada = await addPerson(t, 'Ada', 'admin');
  cookie = { cookie: await signIn(t, ada) };
});
afterAll(async () => t?.stop());

const audits = () => t.studio.events.list({ types: ['audit.admin_request'], limit: 1000 }).filter((e) => e.data.user_id === ada.id);
async function change(method: string, path: string, body?: unknown): Promise<number> {
  const before = audits().length;
  const res = await as(t, cookie, path, body === undefined ? { method } : json(method, body));
  await until(() => audits().length > before, `${method} ${path} audited`);
  return res.status;
}
const last = () => audits().at(-1)!;

describe('the audit of admin changes', () => {
  it('names who changed a setting and which, never its value', async () => {
    expect(await change('PUT', '/api/admin/settings', { max_concurrent: 2 })).toBe(200);
    expect(last().data).toMatchObject({ user_id: ada.id, name: 'Ada', method: 'PUT', path: '/api/admin/settings', status: 200, subject: { fields: ['max_concurrent'] } });
    expect(await change('PUT', '/api/admin/settings/env', { key: 'MODELHUB_API_KEY', value: SECRET })).toBe(200);
    expect(last()).toMatchObject({ message: 'Ada: PUT /api/admin/settings/env (key MODELHUB_API_KEY) → 200', data: { user_id: ada.id, subject: { key: 'MODELHUB_API_KEY' } } });
    // The settings capability's own event says which key changed; the audit says who.
    expect(t.studio.events.list({ types: ['settings.env.updated'] }).at(-1)!.data).toMatchObject({ key: 'MODELHUB_API_KEY' });
  });

  it('names who installed which node package (a refused one too, its URL without the password)', async () => {
    const status = await change('POST', '/api/admin/nodes/install', { url: 'https://someone:tok3n@example.invalid/owner/ComfyUI-Bar.git', commit: 'not-a-commit' });
    expect(status).toBe(400);
    expect(last().data).toMatchObject({ user_id: ada.id, name: 'Ada', path: '/api/admin/nodes/install', status: 400, subject: { url: 'https://***@example.invalid/owner/ComfyUI-Bar.git', commit: 'not-a-commit' } });
  });

  it('names who added and removed which engine', async () => {
    const status = await change('POST', '/api/admin/engines', { name: 'Box two', url: 'http://127.0.0.1:9/' });
    expect(last().data).toMatchObject({ user_id: ada.id, path: '/api/admin/engines', status, subject: { name: 'Box two', url: 'http://127.0.0.1:9/' } });
    const engines = (await (await t.api('/api/admin/engines')).json()) as { engines: Array<{ id: string; name: string }> };
    const added = engines.engines.find((e) => e.name === 'Box two');
    expect(added, 'the engine was added').toBeDefined();
    expect(await change('DELETE', `/api/admin/engines/${added!.id}`)).toBe(200);
    expect(last().data).toMatchObject({ user_id: ada.id, method: 'DELETE', path: `/api/admin/engines/${added!.id}`, status: 200 });
  });

  it('keeps every secret out of every event, and the owner finds them all by person', async () => {
    const everything = JSON.stringify(t.studio.events.list({ limit: 5000 }));
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain('tok3n');
    const byAda = (await (await t.api(`/api/admin/events?limit=1000&user=${ada.id}`)).json()) as StudioEvent[];
    const paths = byAda.filter((e) => e.type === 'audit.admin_request').map((e) => e.data.path);
    expect(paths).toEqual(expect.arrayContaining(['/api/admin/settings', '/api/admin/settings/env', '/api/admin/nodes/install', '/api/admin/engines']));
  });
});

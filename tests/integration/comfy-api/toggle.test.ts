/**
 * The engine's API is off until the owner turns it on (issue 44): off, its paths are not there
 * (404, the socket closed); the owner's toggle turns it on at once; a member may not toggle it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { addPerson, as, signIn } from '../../helpers/people.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let t: TestStudio;

beforeAll(async () => {
  t = await startTestStudio();
});

afterAll(async () => {
  await t?.stop();
});

const toggle = (enabled: boolean) => t.api('/api/admin/comfy-api', { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ enabled }) });

function socketCloseCode(): Promise<number> {
  const ws = new WebSocket(`${t.url.replace('http', 'ws')}/comfy/ws?clientId=x`, { headers: { 'X-API-Key': t.apiKey } });
  return new Promise((resolve) => ws.once('close', (code) => resolve(code)));
}

describe("turning the engine's API on and off", () => {
  it('is off by default: 404 on its paths, its socket closed at once', async () => {
    expect(((await (await t.api('/api/admin/comfy-api')).json()) as { enabled: boolean }).enabled).toBe(false);
    expect((await t.api('/comfy/queue')).status).toBe(404);
    expect((await t.api('/comfy/api/prompt', { method: 'POST', body: '{}' })).status).toBe(404);
    expect(await socketCloseCode()).toBe(1008);
  });

  it('answers once the owner turns it on, and not after it is off again', async () => {
    expect(((await (await toggle(true)).json()) as { enabled: boolean }).enabled).toBe(true);
    expect(await (await t.api('/comfy/queue')).json()).toEqual({ queue_running: [], queue_pending: [] });
    expect(await (await t.api('/comfy/api/prompt')).json()).toEqual({ exec_info: { queue_remaining: 0 } });
    // The engine's other routes are not served.
    expect((await t.api('/comfy/settings')).status).toBe(404);
    expect((await t.api('/comfy/internal/logs')).status).toBe(404);
    await toggle(false);
    expect((await t.api('/comfy/queue')).status).toBe(404);
  });

  it('may not be turned on by a member', async () => {
    const member = await addPerson(t, 'mia', 'member');
    const cookie = await signIn(t, member);
    const res = await as(t, { cookie }, '/api/admin/comfy-api', { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ enabled: true }) });
    expect(res.status).toBe(403);
  });
});

/**
 * Routes check what they are sent through one helper (`validate` with a schema from
 * server/contracts/); these pin the wording of the routes that once checked by hand, so moving
 * them onto the helper changed no status code and no detail.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let t: TestStudio;

beforeAll(async () => {
  t = await startTestStudio();
});
afterAll(async () => t?.stop());

async function send(route: string, body: unknown, method = 'POST'): Promise<{ status: number; detail: unknown }> {
  const res = await t.api(route, { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, detail: ((await res.json()) as { detail?: unknown }).detail };
}

async function sendForm(route: string, fields: Array<[string, string]>): Promise<{ status: number; detail: unknown }> {
  const form = new FormData();
  for (const [name, value] of fields) form.append(name, value);
  const res = await t.api(route, { method: 'POST', body: form });
  return { status: res.status, detail: ((await res.json()) as { detail?: unknown }).detail };
}

describe('route bodies', () => {
  it('retry: a missing or non-string prompt_id', async () => {
    expect(await send('/api/admin/history/retry', {})).toEqual({ status: 400, detail: 'Missing prompt_id' });
    expect(await send('/api/admin/history/retry', { prompt_id: 7 })).toEqual({ status: 400, detail: 'Missing prompt_id' });
    expect(await send('/api/admin/history/retry', { prompt_id: '' })).toEqual({ status: 400, detail: 'Missing prompt_id' });
  });

  it('LLM chat: a body that is not an object', async () => {
    expect(await send('/api/admin/llm/chat', [1, 2])).toEqual({ status: 400, detail: 'Send a JSON object with messages' });
  });

  it('node install: a url that is not text', async () => {
    expect(await send('/api/admin/nodes/install', { url: 42 })).toEqual({ status: 400, detail: 'url is required (an https:// git URL)' });
    expect(await send('/api/admin/nodes/install', {})).toEqual({ status: 400, detail: 'url is required (an https:// git URL)' });
  });

  it('execute and build: params that are not a JSON object', async () => {
    for (const route of ['/api/run/image-filter/execute', '/api/run/image-filter/build']) {
      const broken = await sendForm(route, [['params', '{nope']]);
      expect(broken.status).toBe(400);
      expect(broken.detail).toMatch(/^params is not valid JSON: /);
      expect(await sendForm(route, [['params', '[1]']])).toEqual({ status: 400, detail: 'params must be a JSON object' });
      expect(await send(route, { params: 5 })).toEqual({ status: 400, detail: 'params must be a JSON object' });
    }
  });

  it('build and execute: no params field, or no body at all, is an empty form', async () => {
    const bare = await t.api('/api/run/image-filter/build', { method: 'POST' });
    expect(bare.status).toBe(200);
    expect(Object.keys((await bare.json()) as object).length).toBeGreaterThan(0);
    const noParams = await sendForm('/api/run/image-filter/build', [['other', 'x']]);
    expect(noParams.status).toBe(200);
  });

  it('execute: a workflow that does not exist is a 404 whatever the form', async () => {
    for (const fields of [[], [['params', '{nope']]] as Array<Array<[string, string]>>) {
      const res = await sendForm('/api/run/no-such-workflow/execute', fields);
      expect(res.status).toBe(404);
    }
    expect((await t.api('/api/run/no-such-workflow/execute', { method: 'POST' })).status).toBe(404);
  });

  it('presets: bodies that are not objects, fields sent twice, a bad rename', async () => {
    const notObject = { status: 400, detail: 'Send a JSON object body (Content-Type: application/json)' };
    expect(await send('/api/admin/presets', [])).toEqual(notObject);
    expect(await send('/api/admin/presets/any/rename', ['x'], 'PUT')).toEqual(notObject);
    expect(await sendForm('/api/admin/presets/any/run', [['seed', '1'], ['seed', '2']])).toEqual({ status: 400, detail: 'seed must be sent once, as text' });
    const rename = await send('/api/admin/presets/any/rename', { private: 'yes' }, 'PUT');
    expect(rename.status).toBe(400);
    expect(rename.detail).toMatch(/^Invalid request body: private: /);
  });
});

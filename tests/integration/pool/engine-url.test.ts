/**
 * An engine added by URL: the URL is checked before anything is stored or dialled. A huge one is
 * refused naming the limit; one carrying `user:password@` is refused, since the engine list,
 * events and the log would show it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let t: TestStudio;
beforeAll(async () => {
  t = await startTestStudio();
});
afterAll(async () => t?.stop());

const add = (body: unknown) => t.api('/api/admin/engines', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

describe('POST /api/admin/engines: the URL', () => {
  it('refuses a URL over 2048 characters, naming the limit', async () => {
    const res = await add({ name: 'huge', url: `http://example.invalid/${'a'.repeat(4 * 1024 * 1024)}` });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/at most 2048 characters/);
  });

  it('refuses credentials in the URL and stores nothing', async () => {
    const res = await add({ name: 'with password', url: 'http://user:hunter2secret@127.0.0.1:9/' });
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).toMatch(/user name or password/);
    expect(text).not.toContain('hunter2secret');
    const list = await (await t.api('/api/admin/engines')).text();
    expect(list).not.toContain('hunter2secret');
  });
});

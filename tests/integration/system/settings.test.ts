import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
let t: TestStudio | null = null;

afterAll(async () => {
  await t?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const put = (studio: TestStudio, body: unknown) =>
  studio.api('/api/admin/settings', { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

describe('GET/PUT /api/admin/settings', () => {
  it('defaults max_concurrent to 2, clamps it to 1–10, rejects non-numbers and keeps it across restarts', async () => {
    t = await startTestStudio({ dir });
    expect(await (await t.api('/api/admin/settings')).json()).toEqual({ max_concurrent: 2 });

    expect(await (await put(t, { max_concurrent: 0 })).json()).toEqual({ max_concurrent: 1 });
    expect(await (await put(t, { max_concurrent: 99 })).json()).toEqual({ max_concurrent: 10 });
    expect(await (await put(t, { max_concurrent: 3.4 })).json()).toEqual({ max_concurrent: 3 });
    expect(await (await put(t, {})).json()).toEqual({ max_concurrent: 3 });
    const bad = await put(t, { max_concurrent: 'four' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { detail: string }).detail).toMatch(/max_concurrent/);
    expect(await (await t.api('/api/admin/settings')).json()).toEqual({ max_concurrent: 3 });

    await t.stop();
    t = await startTestStudio({ dir });
    expect(await (await t.api('/api/admin/settings')).json()).toEqual({ max_concurrent: 3 });
  });
});

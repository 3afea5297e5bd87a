/**
 * `GET /api/admin/events?types=` filters, as the spec says: a type this Studio does not know
 * matches nothing, so a client written against a newer Studio still gets an answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let t: TestStudio;
beforeAll(async () => {
  t = await startTestStudio();
});
afterAll(async () => {
  await t.stop();
});

describe('GET /api/admin/events types filter', () => {
  it('answers known types and prefixes', async () => {
    t.studio.events.emit('assets.deleted', 'info', 'for the filter test');
    const res = await t.api('/api/admin/events?types=assets.deleted,job.*');
    expect(res.status).toBe(200);
    expect(((await res.json()) as { type: string }[]).map((e) => e.type)).toContain('assets.deleted');
  });

  it('an unknown type or prefix matches nothing: 200 with what the known ones match', async () => {
    expect(await (await t.api('/api/admin/events?types=job.exploded')).json()).toEqual([]);
    expect(await (await t.api('/api/admin/events?types=jobs.*')).json()).toEqual([]);
    const mixed = await t.api('/api/admin/events?types=assets.deleted,future.kind');
    expect(mixed.status).toBe(200);
    expect(((await mixed.json()) as { type: string }[]).map((e) => e.type)).toContain('assets.deleted');
  });
});

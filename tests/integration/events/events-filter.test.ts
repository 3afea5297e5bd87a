/**
 * `GET /api/admin/events?types=` is checked against the one list of event types: a misspelt type
 * is a 400 naming it, not an empty list that reads as "nothing happened".
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

  it('refuses an unknown type or prefix with 400 {detail}', async () => {
    for (const types of ['job.exploded', 'job.completed,jobs.*']) {
      const res = await t.api(`/api/admin/events?types=${types}`);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { detail: string }).detail).toMatch(/unknown event type "(job\.exploded|jobs\.\*)"/);
    }
  });
});

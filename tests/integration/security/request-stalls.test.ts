/**
 * Small requests that used to block the server for seconds to minutes (every other user waits
 * while the event loop is busy): a 600 KB prompt full of unclosed `[[` and thousands of
 * placeholders between scene markers. Written as the attack; a quadratic parser fails it by
 * timing out, nothing here measures time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let t: TestStudio;
beforeAll(async () => {
  t = await startTestStudio();
});
afterAll(async () => t.stop());

const json = (body: unknown) => ({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

describe('a 600 KB prompt', () => {
  it('is read for its questions in one linear pass: unclosed [[ and 30 000 placeholders between scene markers', async () => {
    const hostile = `${'[[a:'}${'['.repeat(600_000)} [[Mood:calm|wild]]`;
    const many = 'Scene 3: [[Q:a|b]] '.repeat(30_000);
    const create = await t.api('/api/admin/presets', json({ id: 'hostile', name: 'Hostile', workflow: { workflow_id: 'image-filter', params: { prompt: hostile, negative: many } } }));
    expect(create.status).toBe(200);
    const res = await t.api('/api/admin/presets/hostile/placeholders');
    expect(res.status).toBe(200);
    const questions = (await res.json()) as Array<{ index: number; question: string; options: string[]; scene: number; field: string }>;
    expect(questions).toHaveLength(30_001);
    // The stray `[` do not hide the real question after them.
    expect(questions[0]).toMatchObject({ index: 0, field: 'prompt', question: 'Mood', options: ['calm', 'wild'], scene: 0 });
    expect(questions.slice(1).every((q) => q.field === 'negative' && q.scene === 3 && q.question === 'Q')).toBe(true);
    expect((await t.api('/api/health')).status).toBe(200);
  }, 60_000);
});

/**
 * What an unauthenticated client can send: a body that cannot be read (garbage behind
 * `Content-Encoding: gzip`, a wrong charset) is a 400 with a plain detail, and writes no stack to
 * the log. Long texts are refused naming the limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let t: TestStudio;
beforeAll(async () => {
  t = await startTestStudio();
});
afterAll(async () => t?.stop());

describe('bodies that cannot be read', () => {
  it('garbage gzip to the sign-in route: 400, no stack', async () => {
    const res = await fetch(`${t.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
      body: Buffer.from('this is not gzip at all, not even close'),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { detail: string };
    expect(body.detail).toMatch(/body/i);
    expect(body.detail).not.toMatch(/\bat \w+ \(/);
  });

  it('a 4 MB prompt to improve is refused naming the limit', async () => {
    const res = await t.api('/api/admin/llm/improve-prompt', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ text: 'x'.repeat(4 * 1024 * 1024) }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/text: .*at most 4000 characters/);
  });
});

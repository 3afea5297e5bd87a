/**
 * Finding a job in history: the star route (`POST /api/admin/history/{id}/star`) and the history
 * list's `q` (prompt words), `from`/`to` (submission time, any zone) and `starred` filters, paged
 * as before; bad values are 400s with a detail.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../server/contracts/jobs.contract.js';
import { jobFixtures } from '../../helpers/job-fixtures.js';
import { jobRecord } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let t: TestStudio;
const T0 = Date.UTC(2026, 10, 20, 12, 0, 0);
const HOUR = 3600_000;

function plant(id: string, atMs: number, params: Record<string, unknown>, workflow_name = 'SDXL text to image'): void {
  jobFixtures(t.studio).insert(jobRecord({ prompt_id: id, workflow_id: 'txt2img-sdxl', workflow_name, status: 'completed', params }), atMs);
}

const post = (route: string, body: unknown) => t.api(route, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
async function ids(query: string): Promise<string[]> {
  const res = await t.api(`/api/admin/history?${query}`);
  expect(res.status, query).toBe(200);
  return ((await res.json()) as JobRecord[]).map((j) => j.prompt_id);
}

beforeAll(async () => {
  t = await startTestStudio();
  plant('fox', T0, { positive: 'A red Fox in the snow, golden hour', negative: 'blurry', steps: 20 });
  plant('owl', T0 + 2 * HOUR, { positive: 'an owl at night', negative: 'fox', steps: 20 });
  plant('cat', T0 + 26 * HOUR, { prompt: 'a cat 100% asleep_on a chair', steps: 30 });
  plant('lora', T0 + 27 * HOUR, { positive: 'portrait' }, 'Foxy LoRA portraits');
}, 60_000);
afterAll(async () => t?.stop());

describe('history search and filters', () => {
  it('finds jobs by words of any text parameter or the workflow name, case-insensitive, every word required', async () => {
    expect(await ids('q=fox')).toEqual(['lora', 'owl', 'fox']);
    expect(await ids('q=RED%20fox')).toEqual(['fox']);
    expect(await ids('q=golden%20night')).toEqual([]);
    // LIKE's wildcards are literal characters in a search.
    expect(await ids(`q=${encodeURIComponent('100%')}`)).toEqual(['cat']);
    expect(await ids('q=asleep_on')).toEqual(['cat']);
    expect(await ids('q=p_rtrait')).toEqual([]);
    // A number parameter is not text: "20" matches no prompt.
    expect(await ids('q=20')).toEqual([]);
    expect(await ids('q=')).toEqual(['lora', 'cat', 'owl', 'fox']);
  });

  it('filters by submission time given with its zone or as epoch ms, and pages the result', async () => {
    // The browser's day of 20 Nov in Rome (UTC+1): 19 Nov 23:00 UTC to 20 Nov 23:00 UTC.
    expect(await ids(`from=${encodeURIComponent('2026-11-20T00:00:00+01:00')}&to=${encodeURIComponent('2026-11-21T00:00:00+01:00')}`)).toEqual(['owl', 'fox']);
    expect(await ids(`from=${T0 + HOUR}`)).toEqual(['lora', 'cat', 'owl']);
    expect(await ids(`to=${encodeURIComponent(new Date(T0 + 2 * HOUR).toISOString())}`)).toEqual(['fox']);
    expect(await ids(`from=${T0}&q=fox&limit=1&offset=1`)).toEqual(['owl']);
  });

  it('refuses times without a zone and other bad values', async () => {
    for (const query of ['from=2026-11-20', 'to=2026-11-20T10:00:00', 'from=yesterday', 'starred=yes', `q=${'x'.repeat(501)}`]) {
      const res = await t.api(`/api/admin/history?${query}`);
      expect(res.status, query).toBe(400);
      expect(((await res.json()) as { detail: string }).detail).toMatch(/^Invalid request query/);
    }
  });

  it('stars and unstars a job: the record says so, and the starred filter lists it', async () => {
    const res = await post('/api/admin/history/owl/star', { starred: true });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ prompt_id: 'owl', starred: true });
    expect(((await (await t.api('/api/admin/history/owl')).json()) as JobRecord).starred).toBe(true);
    expect(await ids('starred=true')).toEqual(['owl']);
    expect(await ids('starred=false')).toEqual(['lora', 'cat', 'fox']);
    // The list carries the field only on starred records, as it does `retry_of`.
    const listed = (await (await t.api('/api/admin/history')).json()) as JobRecord[];
    expect(listed.filter((j) => 'starred' in j).map((j) => j.prompt_id)).toEqual(['owl']);

    const off = await post('/api/admin/history/owl/star', { starred: false });
    expect(off.status).toBe(200);
    expect('starred' in ((await off.json()) as JobRecord)).toBe(false);
    expect(await ids('starred=true')).toEqual([]);
  });

  it('answers 404 for an unknown job and 400 for a body without a boolean `starred`', async () => {
    const missing = await post('/api/admin/history/nope/star', { starred: true });
    expect(missing.status).toBe(404);
    for (const body of [{}, { starred: 'true' }, { starred: 1 }]) {
      const res = await post('/api/admin/history/fox/star', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(await res.json()).toEqual({ detail: 'starred must be true or false' });
    }
  });
});

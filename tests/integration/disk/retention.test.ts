/**
 * Retention for job outputs: planted job records with real output folders of known sizes; a
 * days rule and a GB rule give their "would free" numbers without removing anything, a starred
 * job, a job a preset was made from and both ends of a retry chain are kept past the rule, running the saved
 * rule removes records and folders and reports it (event, last run), bad rules are refused.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RetentionPlan, RetentionState } from '../../../server/contracts/disk.contract.js';
import { jobFixtures } from '../../helpers/job-fixtures.js';
import { jobRecord } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

const DAY = 24 * 60 * 60_000;
let t: TestStudio;

/** A finished job `age` days old whose output folder holds `mb` MB. */
function plantJob(id: string, ageDays: number, mb: number, extra: { retry_of?: string } = {}): void {
  const dir = path.join(t.studio.config.paths.assetsOutput, `job-${id}`);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'out.png'), Buffer.alloc(mb * 1_000_000, 1));
  jobFixtures(t.studio).insert(jobRecord({ prompt_id: id, workflow_id: 'image-filter', workflow_name: 'Image noise and blur', status: 'completed', output_dir: `job-${id}`, duration: 1, ...(extra.retry_of ? { retry_of: extra.retry_of } : {}) }), Date.now() - ageDays * DAY);
}

const send = (method: string, url: string, body?: unknown) => t.api(url, { method, headers: { 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

beforeAll(async () => {
  t = await startTestStudio();
  plantJob('new-1', 1, 2);
  plantJob('new-2', 2, 2);
  plantJob('old-1', 40, 3);
  plantJob('old-2', 50, 3);
  plantJob('old-preset', 60, 1);
  plantJob('old-retried', 70, 1);
  plantJob('retry', 3, 1, { retry_of: 'old-retried' });
  plantJob('old-starred', 80, 4);
  // Starred through the history's star route: kept whatever its age.
  const star = await send('POST', '/api/admin/history/old-starred/star', { starred: true });
  expect(star.status).toBe(200);
  // A preset made from old-preset keeps it.
  const preset = await send('POST', '/api/admin/presets/from-job/old-preset', { name: 'Kept' });
  expect(preset.status).toBe(200);
}, 60_000);
afterAll(async () => t?.stop());

describe('job output retention', () => {
  it('says what a days rule would free, keeping starred, preset and retry-chain jobs, and removes nothing', async () => {
    const res = await send('POST', '/api/admin/disk/retention/preview', { days: 30 });
    expect(res.status).toBe(200);
    const plan = (await res.json()) as RetentionPlan;
    expect(plan).toMatchObject({ rule: { days: 30, max_gb: null }, jobs: 2, bytes: 6_000_000, kept: 3 });
    expect(plan.sample).toEqual(['old-1', 'old-2']);
    expect(fs.existsSync(path.join(t.studio.config.paths.assetsOutput, 'job-old-1'))).toBe(true);
  });

  it('says what a GB rule would free: everything past the newest N GB', async () => {
    // Newest first: new-1 2, new-2 2, retry 1 (=5 MB), old-1 3 (=8 MB > 0.006 GB), old-2, …
    const plan = (await (await send('POST', '/api/admin/disk/retention/preview', { max_gb: 0.006 })).json()) as RetentionPlan;
    expect(plan).toMatchObject({ jobs: 2, bytes: 6_000_000, kept: 3, sample: ['old-1', 'old-2'] });
    const tighter = (await (await send('POST', '/api/admin/disk/retention/preview', { max_gb: 0.003 })).json()) as RetentionPlan;
    expect(tighter.sample).toEqual(['new-2', 'old-1', 'old-2']);
  });

  it('refuses a rule with both or neither limit, or a bad number', async () => {
    for (const body of [{}, { days: 3, max_gb: 1 }, { days: 0 }, { days: 1.5 }, { max_gb: -1 }]) {
      const res = await send('POST', '/api/admin/disk/retention/preview', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await send('PUT', '/api/admin/disk/retention', { days: 3 })).status).toBe(400);
    expect((await send('POST', '/api/admin/disk/retention/run')).status).toBe(409);
  });

  it('saves the rule with its "would free" numbers, runs it, and reports what it removed', async () => {
    const saved = (await (await send('PUT', '/api/admin/disk/retention', { enabled: true, days: 30 })).json()) as RetentionState;
    expect(saved).toMatchObject({ enabled: true, rule: { days: 30, max_gb: null }, would_free: { jobs: 2, bytes: 6_000_000 }, last_run: null });
    const run = await send('POST', '/api/admin/disk/retention/run');
    expect(run.status).toBe(200);
    expect(await run.json()).toMatchObject({ jobs: 2, bytes: 6_000_000, errors: [] });
    for (const id of ['old-1', 'old-2']) {
      expect(fs.existsSync(path.join(t.studio.config.paths.assetsOutput, `job-${id}`))).toBe(false);
      expect((await t.api(`/api/admin/history/${id}`)).status).toBe(404);
    }
    for (const id of ['old-starred', 'old-preset', 'old-retried', 'new-1']) expect(fs.existsSync(path.join(t.studio.config.paths.assetsOutput, `job-${id}`))).toBe(true);
    const events = t.studio.events.list({ types: ['disk.retention.ran'] });
    expect(events).toHaveLength(1);
    expect(events[0]!.message).toBe('Retention removed 2 jobs (6.0 MB)');
    const state = (await (await t.api('/api/admin/disk/retention')).json()) as RetentionState;
    expect(state.last_run).toMatchObject({ jobs: 2, bytes: 6_000_000 });
    expect(state.would_free).toMatchObject({ jobs: 0, bytes: 0 });
  });
});

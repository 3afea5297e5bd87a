/**
 * One owner of job status: only the job lifecycle writes the `jobs` table. In Studio's code its
 * writer is imported by `server/jobs/job-lifecycle.ts` alone, and no other file carries SQL that
 * changes the table. A second writer added anywhere fails here. (Tests may plant rows: fixtures.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../../server/config.js';
import { canMove, JOB_STATUSES, JOB_TRANSITIONS } from '../../../server/jobs/job-transitions.js';

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(full);
    return /\.(ts|mts|vue)$/.test(entry.name) ? [full] : [];
  });
}

const rel = (file: string) => path.relative(APP_ROOT, file).split(path.sep).join('/');
const files = ['server', 'main', 'preload', 'renderer/src'].flatMap((d) => sourceFiles(path.join(APP_ROOT, d)));

describe('the owner of job status', () => {
  it('is the only importer of the jobs table writer', () => {
    const importers = files.filter((f) => /from\s+['"][^'"]*job-record\.writer(\.js)?['"]/.test(fs.readFileSync(f, 'utf8'))).map(rel);
    expect(importers).toEqual(['server/jobs/job-lifecycle.ts']);
  });

  it('is the only code with SQL that writes the jobs table', () => {
    const writers = files
      .filter((f) => /\b(INSERT\s+(OR\s+\w+\s+)?INTO|REPLACE\s+INTO|UPDATE|DELETE\s+FROM)\s+jobs\b/i.test(fs.readFileSync(f, 'utf8')))
      .map(rel);
    expect(writers).toEqual(['server/jobs/job-record.writer.ts']);
  });
});

describe('the transition table', () => {
  it("matches the spec's job states (plus Studio's cancelled): created queued, back to queued only from running (failover), final states final, stalled and cancelled only from queued or running", () => {
    expect(JOB_STATUSES).toEqual(['queued', 'running', 'completed', 'error', 'stalled', 'cancelled']);
    expect(JOB_STATUSES.filter((s) => canMove(s, 'queued'))).toEqual(['running']);
    for (const done of ['completed', 'error', 'stalled', 'cancelled'] as const) expect(JOB_TRANSITIONS[done]).toEqual([]);
    expect(JOB_STATUSES.filter((s) => canMove(s, 'stalled'))).toEqual(['queued', 'running']);
    expect(JOB_STATUSES.filter((s) => canMove(s, 'cancelled'))).toEqual(['queued', 'running']);
    expect(canMove('queued', 'running')).toBe(true);
  });
});

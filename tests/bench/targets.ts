/**
 * The performance targets, stated as what a user waits for: a benchmark's `run` returns its rows,
 * and `npm run bench` ends with one table of every measure against its target, so the state is
 * seen at a glance. A ratio is always against a reference measured in the same run; nothing here
 * fails on a time. tests/bench/README.md keeps the measured numbers.
 */
import os from 'node:os';

/** Every target, in one place (each bench's row names its own). */
export const TARGETS = {
  npmStart: { text: '< 1.5 s', ms: 1500 },
  compiledStart: { text: '< 500 ms', ms: 500 },
  idleRss: { text: '< 120 MiB', mib: 120 },
  download: { text: '≥ 0.9× curl', ratio: 0.9 },
  outputsZip: { text: '≤ 1.2× zip -0 -r', ratio: 1.2 },
  relay: { text: '≤ 1.5× bare ws relay', ratio: 1.5 },
  historyPage: { text: '< 10 ms', ms: 10 },
  batchQueue: { text: '< 3 s', ms: 3000 },
  batchPage: { text: '< 300 ms', ms: 300 },
} as const;

export interface TargetRow {
  measure: string;
  target: string;
  /** What was measured, in words and numbers. */
  value: string;
  /** null: not measured here (a tool is missing), with the reason in `value`. */
  met: boolean | null;
}

/** A row for a measure its benchmark could not take (an outside tool is missing). */
export function skippedRow(measure: string, target: string, reason: string): TargetRow {
  return { measure, target, value: `skipped: ${reason}`, met: null };
}

/** The closing table. */
export function targetTable(rows: readonly TargetRow[]): string {
  const load = os.loadavg().map((n) => n.toFixed(1)).join(' ');
  const lines = [`## targets (load average ${load} on ${os.cpus().length} cores)`, '| measure | target | measured | state |', '| --- | --- | --- | --- |'];
  for (const row of rows) lines.push(`| ${row.measure} | ${row.target} | ${row.value} | ${row.met === null ? 'not measured' : row.met ? 'met' : 'short'} |`);
  const met = rows.filter((r) => r.met === true).length;
  lines.push(`${met} of ${rows.length} met${rows.some((r) => r.met === null) ? `, ${rows.filter((r) => r.met === null).length} not measured` : ''}`);
  return lines.join('\n');
}

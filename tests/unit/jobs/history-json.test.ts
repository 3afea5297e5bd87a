/**
 * `GET /api/admin/history` sends JSON the store builds from raw rows (`JobStore.historyJson`)
 * instead of `res.json(records)`: the bytes must be exactly those of `JSON.stringify` of the
 * records, for every shape of record and every query.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../server/contracts/jobs.contract.js';
import { openDatabase, type Db } from '../../../server/db/database.js';
import { JobStore } from '../../../server/jobs/job.store.js';
import type { HistoryQuery } from '../../../server/jobs/job.store.js';
import { jobFixtures } from '../../helpers/job-fixtures.js';

let dir: string;
let db: Db;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-history-json-'));
  db = openDatabase(path.join(dir, 'studio.db'));
});
afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Durations in whole seconds (as Studio stores them: SQLite writes the page) or with fractions (JavaScript writes those records). */
const DURATIONS = {
  'whole seconds, the page written by SQLite': (i: number) => (i % 7 ? 30 + i * 1000 : i % 14 ? null : 9_007_199_254_740_991 * (i % 4 ? 1 : -1)),
  'fractions, written by JavaScript': (i: number) => (i % 7 ? 30.25 + i : null),
};

function job(i: number, extra: Partial<JobRecord> = {}, duration: (i: number) => number | null = DURATIONS['fractions, written by JavaScript']): JobRecord {
  return {
    prompt_id: `p-${i}`,
    workflow_id: i % 2 ? 'txt2img' : 'img2vid',
    workflow_name: i % 3 ? 'Text "to" image\n\u2028✓' : null,
    output_dir: i % 4 ? `folder_${i}` : null,
    status: (['completed', 'error', 'stalled', 'cancelled', 'queued', 'running'] as const)[i % 6]!,
    queued_at: '2026-11-22T10:00:00',
    started_at: i % 5 ? '2026-11-22T10:00:01' : null,
    finished_at: i % 5 ? '2026-11-22T10:00:31' : null,
    duration: duration(i),
    input_image: i % 2 ? null : `in put/${i}.png`,
    params: { positive: 'a fox \\ "quoted" </script>', steps: i, cfg: 7.5, nested: { list: [1, null, 'x'], '10': 'numeric key' } },
    seeds: i % 3 ? { seed: 123456789012 + i } : {},
    output: i % 2 ? { filename: `ComfyUI_${i}.png`, subfolder: `folder_${i}/final`, type: 'output' } : null,
    error: i % 6 === 1 ? '[KSampler] CUDA out of memory: "x"' : null,
    // The engine it ran on (pool): on some records, absent on the others.
    ...(i % 4 === 1 ? { engine_id: `e-${i}` } : {}),
    ...extra,
  };
}

describe('history as JSON text', () => {
  it.each(Object.keys(DURATIONS) as Array<keyof typeof DURATIONS>)('is byte for byte JSON.stringify of the records, for every query shape (durations in %s)', (durations) => {
    const writer = jobFixtures({ db });
    for (let i = 0; i < 60; i++) {
      const extra: Partial<JobRecord> = {};
      if (i % 4 === 0) extra.retry_of = `p-${i - 1}`;
      if (i % 5 === 0) extra.preset_id = `preset-${i}`;
      if (i % 3 === 0) extra.starred = true;
      // Some submitted in the same millisecond: the later insert comes first.
      writer.insert(job(i, extra, DURATIONS[durations]), 1_000_000 + Math.floor(i / 3) * 1000);
    }
    // An integer beyond what a JS number holds (another tool's write; JavaScript reads ...992).
    db.prepare('UPDATE jobs SET duration = 9007199254740993 WHERE prompt_id = ?').run('p-1');
    const store = new JobStore(db);
    const queries: HistoryQuery[] = [
      {},
      { limit: 10 },
      { limit: 7, offset: 3 },
      { offset: 5 },
      { status: 'error' },
      { status: 'cancelled', limit: 2 },
      { workflowId: 'txt2img', limit: 100, offset: 0 },
      { workflowId: 'none' },
      { starred: true, offset: 2 },
      { text: 'fox', limit: 9, offset: 1 },
      { limit: 5, offset: 1000 },
    ];
    for (const query of queries) {
      const records = store.history(query);
      expect(store.historyJson(query)).toBe(JSON.stringify(records));
      // The raw mode of the one cached statement does not leak into the record path.
      expect(store.history(query)).toEqual(records);
    }
    expect(store.history({}).length).toBeGreaterThan(30);
  });

  it('writes every character and number as JSON.stringify does (SQLite writes the text, JavaScript the duration)', () => {
    const writer = jobFixtures({ db });
    let every = '';
    for (let c = 0; c < 128; c++) every += String.fromCharCode(c);
    // Line separators, accents, a symbol, an astral emoji and a lone surrogate (stored as bytes no UTF-8 decoder accepts).
    const text = `${every}\u2028\u2029é✓😀\ud800</script>`;
    // Numbers SQLite prints otherwise (1.0e+21, 5.0e-07, 9007199254740994.0).
    const durations = [0.1 + 0.2, 1e21, 5e-7, 2 ** 53 + 2, 0, -1, 123456789012345.67];
    durations.forEach((duration, i) => {
      const extra: Partial<JobRecord> = { workflow_id: text, workflow_name: text, output_dir: text, input_image: text, error: text, duration };
      // Set but empty: `fromRow` leaves an empty optional field out.
      if (i % 2) Object.assign(extra, { retry_of: '', preset_id: '', engine_id: '' });
      else Object.assign(extra, { retry_of: text, preset_id: text, engine_id: text, starred: true });
      writer.insert(job(i * 6, { ...extra, status: 'completed' }), 2_000_000 + i);
    });
    const store = new JobStore(db);
    const records = store.history({});
    expect(records).toHaveLength(durations.length);
    expect(records.map((r) => r.duration).sort()).toEqual([...durations].sort());
    for (const query of [{}, { limit: 3, offset: 1 }, { text: 'fox' }, { starred: true }, { fromMs: 2_000_002, toMs: 2_000_005 }] satisfies HistoryQuery[]) {
      expect(store.historyJson(query)).toBe(JSON.stringify(store.history(query)));
    }
  });
});

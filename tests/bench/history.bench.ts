/**
 * `GET /api/admin/history` with 50 000 stored jobs: a page of 100 and the whole list, end to end
 * over HTTP against Studio as its own (compiled) process. Reference: the same SQL query run
 * directly with better-sqlite3 on the same database file (rows only, no JSON decoding or HTTP).
 */
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../server/db/database.js';
import type { JobRecord } from '../../server/contracts/jobs.contract.js';
import { jobFixtures } from '../helpers/job-fixtures.js';
import { freePort } from '../helpers/ports.js';
import { startStudioProcess } from '../helpers/studio-process.js';
import { TARGETS, type TargetRow } from './targets.js';

const JOBS = 50_000;
const PAGE = 100;
/** Timed pages per measure (after the warm-up): enough for a stable median on a shared machine. */
const PAGE_RUNS = 500;
const COLUMNS =
  'prompt_id, workflow_id, workflow_name, output_dir, status, queued_at, started_at, finished_at, duration, input_image, params, seeds, output, error, retry_of, created_ms';
const HISTORY_SQL = `SELECT ${COLUMNS} FROM jobs WHERE +status IN ('completed','error','stalled') ORDER BY created_ms DESC, rowid DESC`;

/** 50 000 realistic finished jobs, inserted in one transaction. */
export function fill(dbFile: string): void {
  const db = openDatabase(dbFile);
  const store = jobFixtures({ db });
  const start = Date.now() - JOBS * 60_000;
  db.transaction(() => {
    for (let i = 0; i < JOBS; i++) {
      const folder = `txt2img-sdxl_20261122-${String(i).padStart(6, '0')}_abcdef`;
      const failed = i % 20 === 0;
      const job: JobRecord = {
        prompt_id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        workflow_id: 'txt2img-sdxl',
        workflow_name: 'SDXL text to image',
        output_dir: folder,
        status: failed ? 'error' : 'completed',
        queued_at: '2026-11-22T10:00:00',
        started_at: '2026-11-22T10:00:01',
        finished_at: '2026-11-22T10:00:31',
        duration: 30,
        input_image: null,
        params: {
          positive: 'a photograph of a red fox in a snowy forest, golden hour, highly detailed',
          negative: 'blurry, low quality, watermark, text',
          width: 1024,
          height: 1024,
          steps: 25,
          cfg: 7,
          seed: 123456789 + i,
        },
        seeds: { seed: 123456789 + i },
        output: failed ? null : { filename: 'ComfyUI_00001_.png', subfolder: `${folder}/final`, type: 'output' },
        error: failed ? '[KSampler] CUDA out of memory' : null,
      };
      store.insert(job, start + i * 60_000);
    }
  })();
  db.close();
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * Requests (or queries) before timing starts, the same for Studio, the bare server and the
 * reference query: a server answers pages all day, so the steady state is what is compared. With
 * 3, Studio's code was still being compiled by V8 while it was timed (a page's median fell from
 * about 5 ms over its first 30 requests to 1.3 ms after 1 000), which measured the JIT, not the page.
 */
const WARM_UP = 300;
/** Timed calls per block, and untimed calls that start each block (caches warm again after the others ran). */
const BLOCK = 100;
const BLOCK_WARM_UP = 10;

/**
 * The median time of each of `fns` over `runs` timed calls, taken in blocks by turns (Studio's
 * block, the reference's, the bare server's, and again): the machine is shared, and a burst of
 * load from elsewhere then lands on all of them alike instead of on whichever was being timed
 * (timed one after the other, Studio's median moved by a third between runs while the reference
 * stayed put). Blocks, not single calls by turns: a process asked once in three stays cold.
 */
async function timeEach<K extends string>(runs: number, fns: Record<K, () => Promise<unknown> | unknown>, warmUp = WARM_UP): Promise<Record<K, number>> {
  const names = Object.keys(fns) as K[];
  for (const name of names) for (let i = 0; i < warmUp; i++) await fns[name]();
  const samples = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<K, number[]>;
  for (let done = 0; done < runs; done += BLOCK) {
    for (const name of names) {
      for (let i = 0; i < Math.min(BLOCK_WARM_UP, warmUp); i++) await fns[name]();
      for (let i = 0; i < Math.min(BLOCK, runs - done); i++) {
        const t0 = performance.now();
        await fns[name]();
        samples[name].push(performance.now() - t0);
      }
    }
  }
  return Object.fromEntries(names.map((name) => [name, median(samples[name])])) as Record<K, number>;
}

/**
 * A bare node HTTP server in its own process answering every request with `body`, fetched the way
 * the page is fetched from Studio: the part of the page's time that is HTTP alone (the reference
 * query has none).
 */
async function startBareServer(body: ArrayBuffer, dir: string): Promise<{ url: string; stop: () => void }> {
  const port = await freePort();
  const file = path.join(dir, 'page.json');
  fs.writeFileSync(file, Buffer.from(body));
  const source = `const body = require('node:fs').readFileSync(process.env.BODY_FILE);
require('node:http').createServer((req, res) => res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(body)).listen(${port}, '127.0.0.1');`;
  const child = spawn(process.execPath, ['-e', source], { env: { ...process.env, BODY_FILE: file }, stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}/`;
  for (let i = 0; ; i++) {
    try {
      await (await fetch(url)).arrayBuffer();
      return { url, stop: () => child.kill() };
    } catch (err) {
      if (i > 600) {
        child.kill();
        throw err;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** Run the history benchmark and print its lines. */
export async function run(_root: string): Promise<TargetRow[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-bench-history-'));
  const dbFile = path.join(dir, 'db', 'studio.db');
  fs.mkdirSync(path.dirname(dbFile), { recursive: true });
  fill(dbFile);
  // No engine: history is served from SQLite alone.
  const studio = await startStudioProcess(
    { STUDIO_DIR: dir, ENGINE_MODE: 'external', ENGINE_PORT: String(await freePort()) },
    { compiled: true },
  );
  const reference = new Database(dbFile, { readonly: true });
  try {
    const pageStmt = reference.prepare(`${HISTORY_SQL} LIMIT ${PAGE} OFFSET 0`);
    const allStmt = reference.prepare(HISTORY_SQL);
    let pageBytes = 0;
    let allBytes = 0;
    let count = 0;
    const bare = await startBareServer(await (await studio.api(`/api/admin/history?limit=${PAGE}`)).arrayBuffer(), dir);
    let page: Record<'studio' | 'reference' | 'bare', number>;
    try {
      page = await timeEach(PAGE_RUNS, {
        studio: async () => {
          pageBytes = (await (await studio.api(`/api/admin/history?limit=${PAGE}`)).arrayBuffer()).byteLength;
        },
        reference: () => pageStmt.all(),
        bare: async () => (await fetch(bare.url)).arrayBuffer(),
      });
    } finally {
      bare.stop();
    }
    const { studio: studioPage, reference: refPage, bare: transport } = page;
    // Bytes received, not parsed: the client's own JSON.parse is not Studio's time.
    // Before the whole list is timed: the reference's block holds this process for seconds, longer
    // than Studio keeps an idle connection open (5 s), and the next request would meet a closed socket.
    count = ((await (await studio.api('/api/admin/history')).json()) as unknown[]).length;
    const whole = await timeEach(
      5,
      {
        studio: async () => {
          allBytes = (await (await studio.api('/api/admin/history')).arrayBuffer()).byteLength;
        },
        reference: () => allStmt.all(),
      },
      3,
    );
    const { studio: studioAll, reference: refAll } = whole;
    console.log(`history with ${JOBS} stored jobs (median):`);
    console.log(
      `  page of ${PAGE} (?limit=${PAGE}): studio ${studioPage.toFixed(1)} ms (${(pageBytes / 1024).toFixed(0)} KiB over HTTP); ` +
        `same SQL with better-sqlite3 ${refPage.toFixed(2)} ms; ratio ${(studioPage / refPage).toFixed(1)}`,
    );
    console.log(`  the same page's bytes from a bare node http server (transport alone, no query): ${transport.toFixed(2)} ms`);
    console.log(
      `  whole list (${count} jobs): studio ${studioAll.toFixed(0)} ms (${(allBytes / 1048576).toFixed(1)} MiB over HTTP); ` +
        `same SQL with better-sqlite3 ${refAll.toFixed(0)} ms; ratio ${(studioAll / refAll).toFixed(1)}`,
    );
    const value = `${studioPage.toFixed(2)} ms (the same SQL alone ${refPage.toFixed(2)} ms; bare http of the same bytes ${transport.toFixed(2)} ms)`;
    return [{ measure: `history page of ${PAGE} from ${JOBS} jobs over HTTP`, target: TARGETS.historyPage.text, value, met: studioPage < TARGETS.historyPage.ms }];
  } finally {
    reference.close();
    await studio.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

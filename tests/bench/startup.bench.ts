/**
 * Startup and idle memory: time from process start to `/api/health` answering 200, the RSS of the
 * idle server, and `npm start` until the login page is served, each against its target
 * (`TARGETS`), with a bare Node HTTP server started the same way printed beside them.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../helpers/ports.js';
import { fill } from './history.bench.js';
import { TARGETS, type TargetRow } from './targets.js';
import { entryOf, studioEnv } from './studio-entry.js';

interface Sample {
  readyMs: number;
  /** CPU time (user + system) the process had used when it answered: less bent by a loaded machine than the wall time. */
  cpuMs: number;
  rssBytes: number;
}

const REFERENCE = `
const http = require('node:http');
http.createServer((req, res) => res.end('{"status":"ok"}')).listen(Number(process.env.PORT), '127.0.0.1');
`;

/**
 * The floor under Studio's start: the same bare server, after loading only the libraries Studio
 * cannot start without (HTTP framework and its WebSocket layer, the wire schemas, SQLite, the log
 * writer). What Studio takes beyond this is its own modules and start work.
 */
const LIBRARIES_ONLY = `
(async () => {
  for (const name of ['express', 'ws', 'zod', 'better-sqlite3', 'electron-log/node']) await import(name);
  ${REFERENCE}
})();
`;

async function measure(command: string, args: string[], env: NodeJS.ProcessEnv, port: number, cwd?: string): Promise<Sample> {
  const started = performance.now();
  const child = spawn(command, args, { env, cwd, stdio: 'ignore', detached: true });
  try {
    for (;;) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/api/health`);
        if (res.status === 200) break;
      } catch {}
      if (child.exitCode !== null) throw new Error(`${command} exited with ${child.exitCode}`);
      if (performance.now() - started > 60_000) throw new Error('not ready after 60 s');
      await new Promise((r) => setTimeout(r, 5));
    }
    const readyMs = performance.now() - started;
    const cpuMs = cpuTime(child);
    await new Promise((r) => setTimeout(r, 3000));
    return { readyMs, cpuMs, rssBytes: rss(child) };
  } finally {
    stop(child);
    // The next start may use the same data folder: this one must be gone first.
    if (child.exitCode === null && child.signalCode === null) await new Promise((r) => child.once('exit', r));
  }
}

function rss(child: ChildProcess): number {
  const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb * 1024;
}

/** utime + stime of the process, in ms (`/proc/<pid>/stat` fields 14 and 15, in clock ticks of 10 ms). */
function cpuTime(child: ChildProcess): number {
  const stat = fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function stop(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGTERM');
  } catch {}
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * Run the startup benchmark and print its lines. Nine rounds: on a 2-core VM one start differs
 * from the next by up to ±20% (Studio and the bare server alike), and the median of five moved
 * the ratio by ±0.2 between runs of the same build.
 */
export async function run(root: string, runs = 9): Promise<TargetRow[]> {
  const firstRuns: Sample[] = [];
  const studioRuns: Sample[] = [];
  const refRuns: Sample[] = [];
  const libRuns: Sample[] = [];
  // Each run: Studio's first start in a new data folder
  // (it creates the database, seeds the workflows), then a start in that folder, as every launch
  // of the app after the first is: that one is measured against the target. No engine is started
  // (the "stand-in engine off"; a stand-in would boot beside Studio on the same 2 cores).
  for (let i = 0; i < runs; i++) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-bench-'));
    const env = await studioEnv(dir);
    const port = Number(env.STUDIO_PORT);
    firstRuns.push(await measure(process.execPath, [entryOf(root)], env, port));
    studioRuns.push(await measure(process.execPath, [entryOf(root)], env, port));
    const refPort = await freePort();
    refRuns.push(await measure(process.execPath, ['-e', REFERENCE], { ...process.env, PORT: String(refPort) }, refPort));
    const libPort = await freePort();
    libRuns.push(await measure(process.execPath, ['-e', LIBRARIES_ONLY], { ...process.env, PORT: String(libPort) }, libPort, root));
    await new Promise((r) => setTimeout(r, 500));
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const s = { ready: median(studioRuns.map((r) => r.readyMs)), rss: median(studioRuns.map((r) => r.rssBytes)) };
  const r = { ready: median(refRuns.map((x) => x.readyMs)), rss: median(refRuns.map((x) => x.rssBytes)) };
  const l = { ready: median(libRuns.map((x) => x.readyMs)), rss: median(libRuns.map((x) => x.rssBytes)) };
  const cpu = (samples: Sample[]) => median(samples.map((x) => x.cpuMs)).toFixed(0);
  const first = median(firstRuns.map((x) => x.readyMs));
  console.log(`startup: process start → /api/health 200 (data folder of an earlier start, no engine): studio ${s.ready.toFixed(0)} ms, bare node http ${r.ready.toFixed(0)} ms, ratio ${(s.ready / r.ready).toFixed(2)} (median of ${runs})`);
  console.log(`  first start in a new data folder: ${first.toFixed(0)} ms (CPU ${cpu(firstRuns)} ms), ratio ${(first / r.ready).toFixed(2)}`);
  console.log(`  CPU used by then: studio ${cpu(studioRuns)} ms, bare ${cpu(refRuns)} ms, the bare server after loading only the libraries Studio starts with ${cpu(libRuns)} ms (wall ${l.ready.toFixed(0)} ms)`);
  console.log(`idle RSS: studio ${(s.rss / 1048576).toFixed(1)} MiB, bare node http ${(r.rss / 1048576).toFixed(1)} MiB, ratio ${(s.rss / r.rss).toFixed(2)}; libraries only ${(l.rss / 1048576).toFixed(1)} MiB`);
  await measureLargeDatabase(root);
  const npmStart = await measureNpmStart(root, runs);
  const { compiledStart, idleRss, npmStart: npmTarget } = TARGETS;
  const rows: TargetRow[] = [
    {
      measure: 'compiled server start → /api/health 200',
      target: compiledStart.text,
      value: `${s.ready.toFixed(0)} ms (bare node http ${r.ready.toFixed(0)} ms)`,
      met: s.ready < compiledStart.ms,
    },
    { measure: 'idle RSS after start', target: idleRss.text, value: `${(s.rss / 1048576).toFixed(1)} MiB (bare ${(r.rss / 1048576).toFixed(1)})`, met: s.rss < idleRss.mib * 1048576 },
  ];
  const npmMeasure = '`npm start` (unchanged checkout) → login page served';
  if (npmStart === null) rows.push({ measure: npmMeasure, target: npmTarget.text, value: 'skipped: npm is not on PATH', met: null });
  else rows.push({ measure: npmMeasure, target: npmTarget.text, value: `${npmStart.toFixed(0)} ms`, met: npmStart < npmTarget.ms });
  return rows;
}

/**
 * For the reader, not a target: a start whose database holds 50 000 finished jobs (history.bench's
 * rows). The boot check (`PRAGMA quick_check`, db/database-check.ts) reads every page of the
 * database, so a start grows with it; the target's data folder is a nearly empty one.
 */
async function measureLargeDatabase(root: string): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-bench-'));
  try {
    const env = await studioEnv(dir);
    const port = Number(env.STUDIO_PORT);
    // The first start makes the folder (and the database); the jobs go in while Studio is stopped.
    await measure(process.execPath, [entryOf(root)], env, port);
    fill(path.join(dir, 'db', 'studio.db'));
    const size = fs.statSync(path.join(dir, 'db', 'studio.db')).size;
    const samples: Sample[] = [];
    for (let i = 0; i < 3; i++) samples.push(await measure(process.execPath, [entryOf(root)], env, port));
    const ready = median(samples.map((x) => x.readyMs));
    console.log(`  with 50 000 jobs in the database (${(size / 1048576).toFixed(0)} MiB, read whole by the boot's quick_check): ${ready.toFixed(0)} ms (CPU ${median(samples.map((x) => x.cpuMs)).toFixed(0)} ms, median of 3)`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `npm start` in the checkout, as a user runs it, until the login page (`/login`) is served: one
 * start first (it compiles whatever changed since the last `npm start`, and builds the web UI if it
 * is missing), then the median of `runs` starts of the now unchanged checkout. Null when npm is
 * not on PATH.
 */
async function measureNpmStart(root: string, runs: number): Promise<number | null> {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  if (spawnSync(npm, ['--version'], { stdio: 'ignore' }).error) return null;
  const samples: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-bench-'));
    const port = await freePort();
    const env = { ...process.env, STUDIO_DIR: dir, STUDIO_PORT: String(port), STUDIO_HOST: '127.0.0.1', API_KEY: 'bench-key-0123456789', ENGINE_MODE: 'external', ENGINE_PORT: String(await freePort()) };
    const started = performance.now();
    const child = spawn(npm, ['start'], { cwd: root, env, stdio: 'ignore', detached: true });
    try {
      for (;;) {
        try {
          if ((await fetch(`http://127.0.0.1:${port}/login`)).status === 200) break;
        } catch {}
        if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
        if (performance.now() - started > 600_000) throw new Error('npm start: not ready after 10 minutes');
        await new Promise((r) => setTimeout(r, 5));
      }
      if (i > 0) samples.push(performance.now() - started);
    } finally {
      stop(child);
      await new Promise((r) => setTimeout(r, 500));
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  const ms = median(samples);
  console.log(`npm start on an unchanged checkout → login page served: ${ms.toFixed(0)} ms (median of ${runs}, after one start that compiled what had changed)`);
  return ms;
}

/**
 * Download throughput of a 1 GiB local file, SHA-256 on, against `curl` fetching the same file
 * from the same server in the same run, over HTTPS (the model hosts users download from are
 * `https:`; a self-signed certificate made by openssl, which Studio trusts through
 * NODE_EXTRA_CA_CERTS and curl through `--cacert`) and over HTTP. Target: ≥ 0.9× curl for each.
 * The headline is the product path:
 * a running Studio (compiled, its own process) queues the file (`POST
 * /api/admin/models/download/{file}`) and the clock stops when the verified file is in
 * `models/`; meanwhile `/api/health` is timed to show what the API waits. Beside it: native
 * tools doing Studio's work (`curl | tee <file> | openssl dgst -sha256` then `sync <file>`), and
 * SHA-256 alone over 1 GiB in memory (one core, the OpenSSL code Node uses). No download that hashes every byte can finish sooner than that, so
 * `curl / hash` is the highest ratio any hashing client could print here. The file server runs in
 * its own process; on a 2-core machine it takes most of a core. (Not `sha256sum`: coreutils 9.1
 * has no SHA-NI path and hashes ~4x slower than OpenSSL, which would flatter the studio number.)
 * Each line also gives CPU time (user + system): Studio's process over the download, and curl's
 * and the pipeline's (as children of this process). On a machine shared with other work the wall
 * times move with the load; the CPU a transfer costs moves much less.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { catalogOf, repoEntry, writeCatalogs } from '../helpers/fake-catalogs.js';
import { freePort } from '../helpers/ports.js';
import { startStudioProcess, type StudioProcess } from '../helpers/studio-process.js';
import { TEST_API_KEY } from '../helpers/studio.js';
import { missingTools, skipped } from './outside-tools.js';
import { skippedRow, TARGETS, type TargetRow } from './targets.js';

const SERVER = `
const fs = require('node:fs');
const file = process.env.FILE;
const size = fs.statSync(file).size;
const tls = process.env.CERT ? { cert: fs.readFileSync(process.env.CERT), key: fs.readFileSync(process.env.KEY) } : null;
(tls ? require('node:https').createServer(tls, handle) : require('node:http').createServer(handle)).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('ready'));
function handle(req, res) {
  res.writeHead(200, { 'Content-Length': String(size), 'Content-Type': 'application/octet-stream', ETag: '"bench"' });
  fs.createReadStream(file, { highWaterMark: 1024 * 1024 }).pipe(res);
}
`;

const TARGET = TARGETS.download.text;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function timed(fn: () => void): number {
  const started = performance.now();
  fn();
  return performance.now() - started;
}

/** Linux's clock ticks per second for /proc's times (USER_HZ: 100 on every Linux Node runs on). */
const TICK_MS = 10;

/** User + system CPU (ms) of process `pid` so far, or of its waited-for children (`children`); NaN without /proc. */
function cpuMs(pid: number | 'self', children = false): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): utime is the 14th field, cutime the 16th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const at = children ? 13 : 11;
    return (Number(fields[at]) + Number(fields[at + 1])) * TICK_MS;
  } catch {
    return Number.NaN;
  }
}

/** `fn`'s wall time and the CPU of the child processes it waited for (ms). */
function timedChildren(fn: () => void): { ms: number; cpu: number } {
  const before = cpuMs('self', true);
  const ms = timed(fn);
  return { ms, cpu: cpuMs('self', true) - before };
}

/**
 * Run the download benchmark and print its lines: HTTPS, then HTTP. Five rounds each: curl's own
 * time moves by up to 1.5× between rounds with the state of the page cache, and the median of
 * three moved the ratio from 0.86 to 1.32 between runs of one build.
 */
export async function run(_root: string, sizeBytes = 1024 ** 3, runs = 5): Promise<TargetRow[]> {
  const size = `${(sizeBytes / 1024 ** 3).toFixed(sizeBytes < 1024 ** 3 ? 2 : 0)} GiB`;
  const measure = (scheme: string) => `download of ${size} over ${scheme.toUpperCase()} with SHA-256, through the queue`;
  const missing = missingTools('curl', 'openssl');
  if (missing) {
    skipped('download', missing);
    return ['https', 'http'].map((scheme) => skippedRow(measure(scheme), TARGET, missing));
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-bench-'));
  try {
    const source = path.join(dir, 'source.bin');
    const hash = createHash('sha256');
    const out = fs.openSync(source, 'w');
    for (let written = 0; written < sizeBytes; ) {
      const chunk = randomBytes(Math.min(16 * 1024 * 1024, sizeBytes - written));
      hash.update(chunk);
      fs.writeSync(out, chunk);
      written += chunk.length;
    }
    fs.closeSync(out);
    const tls = { cert: path.join(dir, 'cert.pem'), key: path.join(dir, 'key.pem') };
    spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', tls.key, '-out', tls.cert], { stdio: 'ignore' });
    const rows: TargetRow[] = [];
    for (const scheme of ['https', 'http'] as const) {
      const ratio = await measureScheme({ dir, source, sha: hash.copy().digest('hex'), sizeBytes, runs, tls: scheme === 'https' ? tls : null });
      rows.push({ measure: measure(scheme), target: TARGET, value: `${ratio.ratio.toFixed(2)}× (${ratio.studioMs.toFixed(0)} vs ${ratio.curlMs.toFixed(0)} ms)`, met: ratio.ratio >= TARGETS.download.ratio });
    }
    const mib = sizeBytes / 1024 ** 2;
    const h = hashOnlyMs(sizeBytes);
    console.log(`  SHA-256 alone of ${mib.toFixed(0)} MiB in memory: ${h.toFixed(0)} ms (${(mib / (h / 1000)).toFixed(0)} MiB/s): no hashing download can be faster`);
    return rows;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

interface SchemeRun {
  dir: string;
  source: string;
  sha: string;
  sizeBytes: number;
  runs: number;
  /** The file server's certificate and key: HTTPS; null: HTTP. */
  tls: { cert: string; key: string } | null;
}

/** One scheme's rounds: Studio's queue, curl and the native pipeline, each `runs` times. */
async function measureScheme({ dir, source, sha, sizeBytes, runs, tls }: SchemeRun): Promise<{ ratio: number; studioMs: number; curlMs: number }> {
  const scheme = tls ? 'https' : 'http';
  const port = await freePort();
  const server = spawn(process.execPath, ['-e', SERVER], { env: { ...process.env, FILE: source, PORT: String(port), CERT: tls?.cert ?? '', KEY: tls?.key ?? '' }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve) => server.stdout.once('data', () => resolve()));
  const url = `${scheme}://127.0.0.1:${port}/source.bin`;
  const curlArgs = tls ? ['--cacert', tls.cert] : [];
  const target = path.join(dir, 'out.bin');
  // A Studio whose catalog has the file on a "repo host" that is the bench's file server.
  const studioDir = path.join(dir, `studio-${scheme}`);
  const entry = repoEntry('bench.safetensors', { sha256: sha, size_gb: sizeBytes / 1e9 });
  writeCatalogs(studioDir, { models: catalogOf([entry]) });
  const queued = path.join(studioDir, 'models', entry.dest, entry.file);
  const app = await startStudioProcess(
    { STUDIO_DIR: studioDir, REPOHOST_BASE_URL: `${scheme}://127.0.0.1:${port}`, ENGINE_MODE: 'external', ENGINE_PORT: String(await freePort()), ...(tls ? { NODE_EXTRA_CA_CERTS: tls.cert } : {}) },
    { compiled: true },
  );
  const viaQueue: number[] = [];
  const curl: number[] = [];
  const native: number[] = [];
  const cpu = { studio: [] as number[], curl: [] as number[], native: [] as number[] };
  healthLatencies.length = 0;
  try {
    // Each run starts with no dirty pages left by the previous one (writeback would throttle it).
    const fresh = () => {
      fs.rmSync(target, { force: true });
      spawnSync('sync');
    };
    for (let i = 0; i < runs; i++) {
      fresh();
      const studioCpu = cpuMs(app.child.pid!);
      viaQueue.push(await downloadThroughStudio(app, entry.file, queued));
      cpu.studio.push(cpuMs(app.child.pid!) - studioCpu);
      fresh();
      const c = timedChildren(() => spawnSync('curl', ['-s', ...curlArgs, '-o', target, url], { stdio: 'ignore' }));
      curl.push(c.ms);
      cpu.curl.push(c.cpu);
      fresh();
      const pipeline = `curl -s ${curlArgs.map((a) => `'${a}'`).join(' ')} '${url}' | tee '${target}' | openssl dgst -sha256 > /dev/null && sync '${target}'`;
      const n = timedChildren(() => spawnSync('sh', ['-c', pipeline], { stdio: 'ignore' }));
      native.push(n.ms);
      cpu.native.push(n.cpu);
    }
  } finally {
    await app.stop();
    server.kill();
  }
  const mib = sizeBytes / 1024 ** 2;
  const rate = (ms: number) => `${(mib / (ms / 1000)).toFixed(0)} MiB/s`;
  const c = median(curl);
  const q = median(viaQueue);
  const n = median(native);
  console.log(
    `download ${mib.toFixed(0)} MiB over ${scheme.toUpperCase()}, SHA-256 on, through Studio's queue (POST → verified file in models/): ${q.toFixed(0)} ms (${rate(q)}); curl ${c.toFixed(0)} ms (${rate(c)}): throughput ratio ${(c / q).toFixed(2)} (target ${TARGET}, median of ${runs})`,
  );
  const sorted = [...healthLatencies].sort((a, b) => a - b);
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!.toFixed(1);
  console.log(`  meanwhile GET /api/health (every 20 ms, ${sorted.length} requests): p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms, max ${pct(1)} ms`);
  console.log(`  vs curl | tee file | openssl sha256, then sync: ${n.toFixed(0)} ms (${rate(n)}): Studio's queue is ${(n / q).toFixed(2)}× its throughput`);
  console.log(
    `  CPU (user + system, median): Studio's process ${median(cpu.studio).toFixed(0)} ms (with the /api/health probes), curl ${median(cpu.curl).toFixed(0)} ms, the curl | tee | openssl pipeline ${median(cpu.native).toFixed(0)} ms; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`,
  );
  return { ratio: c / q, studioMs: q, curlMs: c };
}

/** Queue `file` in a running Studio and time it until the verified file is in place. */
async function downloadThroughStudio(app: StudioProcess, file: string, finalFile: string): Promise<number> {
  const removed = await call(app, 'DELETE', `/api/admin/models/${file}`);
  if (removed.status >= 300 && removed.status !== 404) throw new Error(`DELETE ${file}: HTTP ${removed.status}`);
  spawnSync('sync');
  const started = performance.now();
  const res = await call(app, 'POST', `/api/admin/models/download/${file}`);
  if (res.status !== 200) throw new Error(`POST download ${file}: HTTP ${res.status} ${res.body}`);
  // The final name appears only after the hash matched and the part was fsynced and renamed.
  // Meanwhile /api/health every 20 ms: how long the API waits behind a download.
  let arrived = false;
  const probing = (async () => {
    while (!arrived) {
      const sent = performance.now();
      await call(app, 'GET', '/api/health');
      healthLatencies.push(performance.now() - sent);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  while (!fs.existsSync(finalFile)) {
    if (performance.now() - started > 120_000) throw new Error(`${file} did not arrive:\n${app.output().slice(-2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  const ms = performance.now() - started;
  arrived = true;
  await probing;
  return ms;
}

/** `/api/health` round trips measured while Studio downloads (see `downloadThroughStudio`). */
const healthLatencies: number[] = [];

/**
 * One request on a new connection: the `spawnSync` calls of this benchmark block the event loop
 * for seconds, so a pooled keep-alive socket would be one Studio already closed.
 */
function call(app: StudioProcess, method: string, pathname: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${app.url}${pathname}`, { method, agent: false, headers: { 'X-API-Key': TEST_API_KEY } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Milliseconds to SHA-256 `sizeBytes` already in memory (best of three). */
function hashOnlyMs(sizeBytes: number): number {
  const block = randomBytes(64 * 1024 * 1024);
  let best = Infinity;
  for (let run = 0; run < 3; run++) {
    const started = performance.now();
    const hash = createHash('sha256');
    for (let done = 0; done < sizeBytes; done += block.length) hash.update(block.subarray(0, Math.min(block.length, sizeBytes - done)));
    hash.digest();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

/**
 * `GET /api/engine/view` of a 50 MB file: throughput through Studio as a ratio against fetching
 * it straight from the engine. The stand-in engine and Studio each run as their own (compiled)
 * process, as in production; this process only downloads, alternating the routes.
 *
 * The engine shares Studio's input and output folders (as when Studio starts it) but keeps its
 * own temp folder, so one run measures both of Studio's paths: a file in a shared folder (read
 * from disk, the target line) and one only the engine has (streamed through from the engine,
 * compared with a bare `node:http` proxy doing the least any proxy can).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../helpers/ports.js';
import { startStudioProcess } from '../helpers/studio-process.js';
import { TEST_API_KEY } from '../helpers/studio.js';
import type { TargetRow } from './targets.js';

const SIZE = 50 * 1024 * 1024;

/** The least any proxy can do: a bare `node:http` server piping the engine's response through. */
const BARE_PROXY = `
const http = require('node:http');
http.createServer((req, res) => {
  http.get('http://127.0.0.1:' + process.env.ENGINE_PORT + req.url, (up) => {
    res.writeHead(up.statusCode, { 'content-type': up.headers['content-type'], 'content-length': up.headers['content-length'] });
    up.pipe(res);
  });
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening on'));
`;
const RUNS = 15;

async function startEngine(root: string, dir: string): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  return spawnListening(
    [
      path.join(root, 'dist', 'server', 'standin', 'main.js'),
      '--port', String(port),
      '--input-directory', path.join(dir, 'assets', 'input'),
      '--output-directory', path.join(dir, 'assets', 'output'),
      // Not Studio's temp folder (that is <dir>/engine/temp): files there only the engine can serve.
      '--temp-directory', path.join(dir, 'engine-own-temp'),
    ],
    { STUDIO_DIR: dir },
    port,
  );
}

/** Spawn node with `args`; resolves once it prints "listening on". */
async function spawnListening(args: string[], env: Record<string, string>, port: number): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.includes('listening on')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code}`)));
  });
  return { child, port };
}

/** Download `url` to nowhere with `node:http` (lighter per byte than fetch's web streams); returns MB/s. */
function download(url: string, headers: Record<string, string> = {}): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          reject(new Error(`GET ${url}: HTTP ${res.statusCode}`));
          return;
        }
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('error', reject);
        res.on('end', () => {
          if (bytes !== SIZE) reject(new Error(`GET ${url}: ${bytes} bytes, expected ${SIZE}`));
          else resolve(SIZE / 1048576 / ((performance.now() - t0) / 1000));
        });
      })
      .on('error', reject);
  });
}

/** Fields of /proc/<pid>/stat after the command name (the first is the state, field 3). */
function statFields(pid: number): string[] {
  return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
}

/** User + system CPU time of a process so far, in ms (from /proc; clock ticks are 10 ms). */
function cpuMs(pid: number): number {
  const fields = statFields(pid);
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * Minor page faults of a process so far. Shown because they were the stream-through's hidden cost
 * (issue 29): fresh 64 KiB buffers per read, freed in bulk and trimmed by glibc, faulted in again.
 */
function minorFaults(pid: number): number {
  return Number(statFields(pid)[7]);
}

/** Poll `probe` until it returns something (the probe runs right after the engine answers). */
async function waitFor(probe: () => string | undefined, what: string, timeoutMs = 30_000): Promise<string> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Run the view benchmark and print its line. */
export async function run(root: string): Promise<TargetRow[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-bench-view-'));
  fs.mkdirSync(path.join(dir, 'assets', 'output', 'bench'), { recursive: true });
  const bytes = crypto.randomBytes(SIZE);
  fs.writeFileSync(path.join(dir, 'assets', 'output', 'bench', 'big.mp4'), bytes);
  const engine = await startEngine(root, dir);
  // After the start: the engine empties its temp folder (`<--temp-directory>/temp`) when it starts.
  fs.mkdirSync(path.join(dir, 'engine-own-temp', 'temp', 'bench'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'engine-own-temp', 'temp', 'bench', 'big.mp4'), bytes);
  const studio = await startStudioProcess({ STUDIO_DIR: dir, ENGINE_MODE: 'external', ENGINE_PORT: String(engine.port) }, { compiled: true });
  await waitFor(() => /engine folders shared with Studio: (.*)/.exec(studio.output())?.[1], 'the shared folder probe');
  const proxyPort = await freePort();
  const proxy = await spawnListening(['-e', BARE_PROXY], { PORT: String(proxyPort), ENGINE_PORT: String(engine.port) }, proxyPort);
  try {
    const shared = 'filename=big.mp4&subfolder=bench&type=output';
    const engineOnly = 'filename=big.mp4&subfolder=bench&type=temp';
    const direct = `http://127.0.0.1:${engine.port}/view?${shared}`;
    const viaShared = `${studio.url}/api/engine/view?${shared}`;
    const viaProxy = `${studio.url}/api/engine/view?${engineOnly}`;
    const bare = `http://127.0.0.1:${proxy.port}/view?${engineOnly}`;
    const key = { 'X-API-Key': TEST_API_KEY };
    for (const [url, headers] of [[direct], [viaShared, key], [viaProxy, key], [bare]] as const) await download(url, headers);
    const straight: number[] = [];
    const sharedRates: number[] = [];
    const proxyRates: number[] = [];
    const bareRates: number[] = [];
    let sharedCpuMs = 0;
    let proxyCpuMs = 0;
    let bareCpuMs = 0;
    let proxyFaults = 0;
    let bareFaults = 0;
    for (let i = 0; i < RUNS; i++) {
      straight.push(await download(direct));
      let cpu = cpuMs(studio.child.pid!);
      sharedRates.push(await download(viaShared, key));
      sharedCpuMs += cpuMs(studio.child.pid!) - cpu;
      cpu = cpuMs(studio.child.pid!);
      let faults = minorFaults(studio.child.pid!);
      proxyRates.push(await download(viaProxy, key));
      proxyCpuMs += cpuMs(studio.child.pid!) - cpu;
      proxyFaults += minorFaults(studio.child.pid!) - faults;
      cpu = cpuMs(proxy.child.pid!);
      faults = minorFaults(proxy.child.pid!);
      bareRates.push(await download(bare));
      bareCpuMs += cpuMs(proxy.child.pid!) - cpu;
      bareFaults += minorFaults(proxy.child.pid!) - faults;
    }
    const r = median(straight);
    const s = median(sharedRates);
    const p = median(proxyRates);
    const b = median(bareRates);
    const perRun = (ms: number) => `${(ms / RUNS).toFixed(0)} ms`;
    console.log(`view of a 50 MB file (median of ${RUNS}, alternating), straight from the engine ${r.toFixed(0)} MB/s:`);
    console.log(`  through Studio, shared output folder ${s.toFixed(0)} MB/s: ratio ${(s / r).toFixed(2)} (target ≥ 0.9)`);
    console.log(`  through Studio, a file only the engine has (streamed through) ${p.toFixed(0)} MB/s: ratio ${(p / r).toFixed(2)}`);
    console.log(`  through a bare node:http proxy ${b.toFixed(0)} MB/s (ratio ${(b / r).toFixed(2)}): Studio's stream-through vs bare proxy ${(p / b).toFixed(2)}`);
    console.log(`  Studio CPU per 50 MB (user + system): shared ${perRun(sharedCpuMs)}, streamed through ${perRun(proxyCpuMs)}; bare proxy ${perRun(bareCpuMs)}`);
    console.log(`  minor page faults per 50 MB: Studio streaming through ${(proxyFaults / RUNS).toFixed(0)}; bare proxy ${(bareFaults / RUNS).toFixed(0)}`);
    const rss = Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${studio.child.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
    console.log(`  Studio's peak RSS after the downloads: ${(rss / 1048576).toFixed(0)} MiB (the file is streamed, not buffered)`);
    return [
      { measure: '/api/engine/view, a file only the engine has', target: '≥ 0.9× bare node proxy', value: `${(p / b).toFixed(2)}× (${p.toFixed(0)} vs ${b.toFixed(0)} MB/s)`, met: p / b >= 0.9 },
    ];
  } finally {
    await studio.stop();
    proxy.child.kill('SIGTERM');
    engine.child.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

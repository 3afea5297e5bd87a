/**
 * `GET /api/engine/view` of a 50 MB file: throughput through Studio's proxy as a ratio against
 * fetching it straight from the engine. The stand-in engine and Studio each run as their own
 * (compiled) process, as in production; this process only downloads, alternating the two routes.
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
const RUNS = 7;

async function startEngine(root: string, dir: string): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  return spawnListening(
    [
      path.join(root, 'dist', 'server', 'engine', 'standin', 'main.js'),
      '--port', String(port),
      '--input-directory', path.join(dir, 'assets', 'input'),
      '--output-directory', path.join(dir, 'assets', 'output'),
      '--temp-directory', path.join(dir, 'engine', 'temp'),
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

/** User + system CPU time of a process so far, in ms (from /proc; clock ticks are 10 ms). */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Run the view benchmark and print its line. */
export async function run(root: string): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-bench-view-'));
  fs.mkdirSync(path.join(dir, 'assets', 'output', 'bench'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'assets', 'output', 'bench', 'big.mp4'), crypto.randomBytes(SIZE));
  const engine = await startEngine(root, dir);
  const studio = await startStudioProcess({ STUDIO_DIR: dir, ENGINE_MODE: 'external', ENGINE_PORT: String(engine.port) }, { compiled: true });
  const proxyPort = await freePort();
  const proxy = await spawnListening(['-e', BARE_PROXY], { PORT: String(proxyPort), ENGINE_PORT: String(engine.port) }, proxyPort);
  try {
    const query = 'filename=big.mp4&subfolder=bench&type=output';
    const direct = `http://127.0.0.1:${engine.port}/view?${query}`;
    const proxied = `${studio.url}/api/engine/view?${query}`;
    const key = { 'X-API-Key': TEST_API_KEY };
    await download(direct);
    await download(proxied, key);
    const bare = `http://127.0.0.1:${proxy.port}/view?${query}`;
    await download(bare);
    const viaStudio: number[] = [];
    const straight: number[] = [];
    const viaBare: number[] = [];
    let studioCpuMs = 0;
    let bareCpuMs = 0;
    for (let i = 0; i < RUNS; i++) {
      straight.push(await download(direct));
      let cpu = cpuMs(studio.child.pid!);
      viaStudio.push(await download(proxied, key));
      studioCpuMs += cpuMs(studio.child.pid!) - cpu;
      cpu = cpuMs(proxy.child.pid!);
      viaBare.push(await download(bare));
      bareCpuMs += cpuMs(proxy.child.pid!) - cpu;
    }
    const s = median(viaStudio);
    const r = median(straight);
    const b = median(viaBare);
    console.log(`view of a 50 MB file (median of ${RUNS}, alternating):`);
    console.log(`  through Studio ${s.toFixed(0)} MB/s, straight from the engine ${r.toFixed(0)} MB/s: ratio ${(s / r).toFixed(2)}`);
    console.log(`  through a bare node:http proxy ${b.toFixed(0)} MB/s (ratio ${(b / r).toFixed(2)}): Studio vs bare proxy ${(s / b).toFixed(2)}`);
    console.log(
      `  CPU time per 50 MB proxied (user + system): Studio ${(studioCpuMs / RUNS).toFixed(0)} ms, bare proxy ${(bareCpuMs / RUNS).toFixed(0)} ms`,
    );
    const rss = Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${studio.child.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
    console.log(`  Studio's peak RSS after the downloads: ${(rss / 1048576).toFixed(0)} MiB (the file is streamed, not buffered)`);
  } finally {
    await studio.stop();
    proxy.child.kill('SIGTERM');
    engine.child.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

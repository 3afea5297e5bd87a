/**
 * Download throughput: `downloadFile` (the engine the download queue drives, SHA-256 hashing on)
 * fetching a 1 GiB local file, and the same download queued through a running Studio (`POST
 * /api/admin/models/download/{file}` until the file is in `models/`, so Studio's own heap and
 * event loop are in the measurement), against `curl` fetching the same file from the same server in the
 * same run, and against native tools doing the same work: `curl | tee <file> | openssl dgst
 * -sha256` then `sync <file>` (fetch, write, SHA-256 with the OpenSSL code Node's crypto uses,
 * fsync). The file server runs in its own process so neither client shares an event loop with it.
 * Target: ratio ≥ 0.9.
 *
 * A third line measures SHA-256 alone over 1 GiB in memory (one core, the OpenSSL code Node uses):
 * no download that hashes every byte can finish sooner, so `curl / that` is the highest ratio any
 * hashing client could print here. On a 2-core machine the file server also takes most of a core.
 * curl neither hashes nor fsyncs, which the second line shows. (Not `sha256sum`: coreutils 9.1
 * has no SHA-NI path and hashes ~4x slower than OpenSSL, which would flatter the studio number.)
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { downloadFile } from '../../server/catalog/file-download.js';
import { catalogOf, repoEntry, writeCatalogs } from '../helpers/fake-catalogs.js';
import { freePort } from '../helpers/ports.js';
import { startStudioProcess, type StudioProcess } from '../helpers/studio-process.js';

const SERVER = `
const http = require('node:http');
const fs = require('node:fs');
const file = process.env.FILE;
const size = fs.statSync(file).size;
http.createServer((req, res) => {
  res.writeHead(200, { 'Content-Length': String(size), 'Content-Type': 'application/octet-stream', ETag: '"bench"' });
  fs.createReadStream(file, { highWaterMark: 1024 * 1024 }).pipe(res);
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('ready'));
`;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function timed(fn: () => void): number {
  const started = performance.now();
  fn();
  return performance.now() - started;
}

/** Run the download benchmark and print its lines. */
export async function run(_root: string, sizeBytes = 1024 ** 3, runs = 3): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-bench-'));
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
  const sha = hash.digest('hex');
  const port = await freePort();
  const server = spawn(process.execPath, ['-e', SERVER], { env: { ...process.env, FILE: source, PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve) => server.stdout.once('data', () => resolve()));
  const url = `http://127.0.0.1:${port}/source.bin`;
  const target = path.join(dir, 'out.bin');
  // A Studio whose catalog has the file on a "repo host" that is the bench's file server.
  const studioDir = path.join(dir, 'studio');
  const entry = repoEntry('bench.safetensors', { sha256: sha, size_gb: sizeBytes / 1e9 });
  writeCatalogs(studioDir, { models: catalogOf([entry]) });
  const queued = path.join(studioDir, 'models', entry.dest, entry.file);
  const app = await startStudioProcess(
    { STUDIO_DIR: studioDir, REPOHOST_BASE_URL: `http://127.0.0.1:${port}`, ENGINE_MODE: 'external', ENGINE_PORT: String(await freePort()) },
    { compiled: true },
  );
  const viaQueue: number[] = [];
  const studio: number[] = [];
  const curl: number[] = [];
  const native: number[] = [];
  const hasOpenssl = spawnSync('openssl', ['version'], { stdio: 'ignore' }).status === 0;
  try {
    // Each run starts with no dirty pages left by the previous one (writeback would throttle it).
    const fresh = () => {
      fs.rmSync(target, { force: true });
      spawnSync('sync');
    };
    for (let i = 0; i < runs; i++) {
      fresh();
      const started = performance.now();
      const result = await downloadFile({ url, partFile: `${target}.part`, finalFile: target, expectedSha256: sha });
      studio.push(performance.now() - started);
      if (result.sha256 !== sha) throw new Error('hash mismatch in the benchmark');
      fresh();
      viaQueue.push(await downloadThroughStudio(app, entry.file, queued));
      fresh();
      curl.push(timed(() => spawnSync('curl', ['-s', '-o', target, url], { stdio: 'ignore' })));
      if (hasOpenssl) {
        fresh();
        const pipeline = `curl -s '${url}' | tee '${target}' | openssl dgst -sha256 > /dev/null && sync '${target}'`;
        native.push(timed(() => spawnSync('sh', ['-c', pipeline], { stdio: 'ignore' })));
      }
    }
  } finally {
    await app.stop();
    server.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const mib = sizeBytes / 1024 ** 2;
  const rate = (ms: number) => `${(mib / (ms / 1000)).toFixed(0)} MiB/s`;
  const [s, c] = [median(studio), median(curl)];
  console.log(`download ${mib.toFixed(0)} MiB, SHA-256 on: studio ${s.toFixed(0)} ms (${rate(s)}), curl ${c.toFixed(0)} ms (${rate(c)}), throughput ratio ${(c / s).toFixed(2)} (target ≥ 0.9, median of ${runs})`);
  const q = median(viaQueue);
  console.log(`  through Studio's download queue (POST → file in models/): ${q.toFixed(0)} ms (${rate(q)}), throughput ratio ${(c / q).toFixed(2)}`);
  if (native.length) {
    const n = median(native);
    console.log(`  vs curl | tee file | openssl sha256, then sync: ${n.toFixed(0)} ms (${rate(n)}), throughput ratio ${(n / s).toFixed(2)}`);
  }
  const h = hashOnlyMs(sizeBytes);
  console.log(`  SHA-256 alone of ${mib.toFixed(0)} MiB in memory: ${h.toFixed(0)} ms (${rate(h)}); the ceiling for any hashing download vs curl: ratio ${(c / h).toFixed(2)}`);
}

/** Queue `file` in a running Studio and time it until the verified file is in place. */
async function downloadThroughStudio(app: StudioProcess, file: string, finalFile: string): Promise<number> {
  const removed = await app.api(`/api/admin/models/${file}`, { method: 'DELETE' });
  if (!removed.ok && removed.status !== 404) throw new Error(`DELETE ${file}: HTTP ${removed.status}`);
  spawnSync('sync');
  const started = performance.now();
  const res = await app.api(`/api/admin/models/download/${file}`, { method: 'POST' });
  if (!res.ok) throw new Error(`POST download ${file}: HTTP ${res.status} ${await res.text()}`);
  // The final name appears only after the hash matched and the part was fsynced and renamed.
  while (!fs.existsSync(finalFile)) {
    if (performance.now() - started > 120_000) throw new Error(`${file} did not arrive:\n${app.output().slice(-2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return performance.now() - started;
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

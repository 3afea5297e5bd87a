/**
 * Download throughput: `downloadFile` (the engine the download queue drives, SHA-256 hashing on)
 * fetching a 1 GiB local file, against `curl` fetching the same file from the same server in the
 * same run, and against native tools doing the same work: `curl | tee <file> | openssl dgst
 * -sha256` then `sync <file>` (fetch, write, SHA-256 with the OpenSSL code Node's crypto uses,
 * fsync). The file server runs in its own process so neither client shares an event loop with it.
 * Target: ratio ≥ 0.9.
 *
 * On a 2-core machine the file server takes one core, so the client's receive + SHA-256 + write
 * compete for the other; curl neither hashes nor fsyncs, which the second line shows. (Not
 * `sha256sum`: coreutils 9.1 has no SHA-NI path and hashes ~4x slower than OpenSSL, which would
 * flatter the studio number.)
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { downloadFile } from '../../server/catalog/file-download.js';
import { freePort } from '../helpers/ports.js';

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
      curl.push(timed(() => spawnSync('curl', ['-s', '-o', target, url], { stdio: 'ignore' })));
      if (hasOpenssl) {
        fresh();
        const pipeline = `curl -s '${url}' | tee '${target}' | openssl dgst -sha256 > /dev/null && sync '${target}'`;
        native.push(timed(() => spawnSync('sh', ['-c', pipeline], { stdio: 'ignore' })));
      }
    }
  } finally {
    server.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const mib = sizeBytes / 1024 ** 2;
  const rate = (ms: number) => `${(mib / (ms / 1000)).toFixed(0)} MiB/s`;
  const [s, c] = [median(studio), median(curl)];
  console.log(`download ${mib.toFixed(0)} MiB, SHA-256 on: studio ${s.toFixed(0)} ms (${rate(s)}), curl ${c.toFixed(0)} ms (${rate(c)}), throughput ratio ${(c / s).toFixed(2)} (target ≥ 0.9, median of ${runs})`);
  if (native.length) {
    const n = median(native);
    console.log(`  vs curl | tee file | openssl sha256, then sync: ${n.toFixed(0)} ms (${rate(n)}), throughput ratio ${(n / s).toFixed(2)}`);
  }
}

/**
 * SHA-256 of a part file, computed on a worker thread that follows the file as it is written.
 *
 * Why a worker that reads the file back, rather than `hash.update(chunk)` as chunks arrive:
 * SHA-256 costs ~0.5 s per GiB even with the CPU's SHA extensions, as much as receiving and
 * writing the bytes together. On Studio's main thread that time is taken from the API, the
 * WebSocket relay and every other download; on a worker it runs on another core, beside the
 * transfer. Reading back from the page cache is cheap (the bytes were just written), it hashes
 * exactly the bytes on disk, and a resumed part's head is hashed while its tail downloads.
 *
 * The owner reports how far the file is written (`advance`), never further: the worker only
 * ever reads bytes that are on disk, and the file only grows (a restart from zero takes a new
 * hasher). The worker's source is a string, evaluated: it needs no file of its own, so it runs
 * the same from the sources, the compiled build, the tests and a packaged app's archive.
 *
 * Each part file has a thread of its own, ended once its digest is in (or the hasher disposed).
 */
import { Worker } from 'node:worker_threads';

/** CommonJS, evaluated by `new Worker(…, { eval: true })`; see the file comment. */
const WORKER_SOURCE = `
const { parentPort, workerData: file } = require('node:worker_threads');
const fs = require('node:fs');
const { createHash } = require('node:crypto');
const buffer = Buffer.allocUnsafe(4 * 1024 * 1024);
const hash = createHash('sha256');
let fd = -1;
let hashed = 0;
let target = 0;
let finishAt = -1;
function run() {
  while (hashed < target) {
    if (fd < 0) fd = fs.openSync(file, 'r');
    const bytes = fs.readSync(fd, buffer, 0, Math.min(buffer.length, target - hashed), hashed);
    if (bytes === 0) {
      throw Object.assign(new Error('the part file ended after ' + hashed + ' bytes, but ' + target + ' were written to it'), {
        code: 'EIO', syscall: 'read', path: file,
      });
    }
    hash.update(buffer.subarray(0, bytes));
    hashed += bytes;
  }
  if (finishAt >= 0) {
    if (fd >= 0) fs.closeSync(fd);
    parentPort.postMessage({ digest: hash.digest('hex'), bytes: hashed });
  }
}
parentPort.on('message', (message) => {
  if (message.upTo > target) target = message.upTo;
  if (typeof message.finish === 'number') {
    finishAt = message.finish;
    target = finishAt;
  }
  try {
    if (finishAt >= 0 && hashed > finishAt) throw new Error('asked for the hash of ' + finishAt + ' bytes after hashing ' + hashed);
    run();
  } catch (err) {
    parentPort.postMessage({ error: { message: err.message, code: err.code, syscall: err.syscall, path: err.path } });
    parentPort.close();
  }
});
`;

interface WorkerAnswer {
  digest?: string;
  error?: { message: string; code?: string; syscall?: string; path?: string };
}

/** One part file's SHA-256, followed on a worker thread; see the file comment. */
export class PartHasher {
  private readonly worker: Worker;
  private readonly result: Promise<string>;
  private reported = 0;

  /** Start hashing `file` (it need not exist until `advance` says bytes are there). */
  constructor(file: string) {
    // No inherited flags: the source is CommonJS and needs none (`--input-type=module` would break it).
    this.worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [], workerData: file });
    // A download that is abandoned must not keep the process alive.
    this.worker.unref();
    let onMessage!: (answer: WorkerAnswer) => void;
    let onError!: (err: Error) => void;
    let onExit!: (code: number) => void;
    this.result = new Promise<string>((resolve, reject) => {
      onMessage = (answer) => {
        if (answer.digest) resolve(answer.digest);
        else if (answer.error) reject(Object.assign(new Error(answer.error.message), answer.error));
      };
      onError = reject;
      onExit = (code) => reject(new Error(`The hashing thread stopped (exit code ${code})`));
    });
    this.worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    // Observed by `digest`; a hasher that is disposed unused must not report an unhandled rejection.
    this.result.catch(() => undefined);
  }

  /** The first `bytes` bytes of the file are on disk: hash up to there. */
  advance(bytes: number): void {
    if (bytes <= this.reported) return;
    this.reported = bytes;
    this.worker.postMessage({ upTo: bytes });
  }

  /** The file is complete at `bytes` bytes: its SHA-256 (hex) once the worker caught up. */
  async digest(bytes: number): Promise<string> {
    this.worker.postMessage({ finish: bytes });
    try {
      return await this.result;
    } finally {
      await this.dispose();
    }
  }

  /** Stop the worker (idempotent). */
  async dispose(): Promise<void> {
    await this.worker.terminate();
  }
}

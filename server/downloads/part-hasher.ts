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
 * A thread that hashed a file to the end waits `IDLE_MS` (30 s) for the next one, like the
 * download thread it runs under (`download-thread.ts`): starting one is an isolate and Node's
 * bootstrap, 15–80 ms on a loaded 2-core machine (issue 29), CPU taken from the transfer it
 * starts beside. Each file starts from a `file` message with a new hash and nothing of the last
 * one; a thread that failed, or whose hasher was disposed before its digest, is never reused.
 */
import { Worker } from 'node:worker_threads';

/** How long a hashing thread that finished a file waits for the next one (see the file comment). */
const IDLE_MS = 30_000;

/** CommonJS, evaluated by `new Worker(…, { eval: true })`; see the file comment. */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const { createHash } = require('node:crypto');
const buffer = Buffer.allocUnsafe(4 * 1024 * 1024);
let file = null;
let hash = null;
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
    const digest = hash.digest('hex');
    // Nothing of this file is kept: the next one starts from a new 'file' message.
    file = null;
    hash = null;
    fd = -1;
    parentPort.postMessage({ digest, bytes: hashed });
  }
}
parentPort.on('message', (message) => {
  if (typeof message.file === 'string') {
    file = message.file;
    hash = createHash('sha256');
    fd = -1;
    hashed = 0;
    target = 0;
    finishAt = -1;
    return;
  }
  if (file === null) return;
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

/** This thread's hashing threads: how many were started (tests see reuse in it) and the one waiting for a file. */
export const hashingThreads: { started: number; idle: { worker: Worker; timer: NodeJS.Timeout } | null } = { started: 0, idle: null };

/** The waiting hashing thread, or a new one. */
function takeThread(): Worker {
  const idle = hashingThreads.idle;
  if (idle) {
    hashingThreads.idle = null;
    clearTimeout(idle.timer);
    return idle.worker;
  }
  hashingThreads.started += 1;
  // No inherited flags: the source is CommonJS and needs none (`--input-type=module` would break it).
  const worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [] });
  // A download that is abandoned, or a thread waiting for the next file, must not keep the process alive.
  worker.unref();
  // Waiting, it may still fail or exit: then it is no longer one to hand out.
  const drop = () => {
    if (hashingThreads.idle?.worker !== worker) return;
    clearTimeout(hashingThreads.idle.timer);
    hashingThreads.idle = null;
  };
  worker.on('exit', drop).on('error', drop);
  return worker;
}

/** Keep a thread that hashed a file to the end for the next file (one at most; another ends). */
function releaseThread(worker: Worker): void {
  if (hashingThreads.idle) {
    void worker.terminate();
    return;
  }
  const timer = setTimeout(() => {
    if (hashingThreads.idle?.worker !== worker) return;
    hashingThreads.idle = null;
    void worker.terminate();
  }, IDLE_MS);
  timer.unref();
  hashingThreads.idle = { worker, timer };
}

/** One part file's SHA-256, followed on a worker thread; see the file comment. */
export class PartHasher {
  private readonly worker: Worker;
  private readonly result: Promise<string>;
  private reported = 0;
  /** The thread went back to the waiting list (its digest arrived): it is no longer ours to stop. */
  private released = false;
  private readonly detach: () => void;

  /** Start hashing `file` (it need not exist until `advance` says bytes are there). */
  constructor(file: string) {
    this.worker = takeThread();
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
    this.detach = () => void this.worker.off('message', onMessage).off('error', onError).off('exit', onExit);
    // Observed by `digest`; a hasher that is disposed unused must not report an unhandled rejection.
    this.result.catch(() => undefined);
    this.worker.postMessage({ file });
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
      const digest = await this.result;
      if (!this.released) {
        this.released = true;
        this.detach();
        releaseThread(this.worker);
      }
      return digest;
    } finally {
      await this.dispose();
    }
  }

  /** Stop the worker unless it went back to the waiting list (idempotent). */
  async dispose(): Promise<void> {
    if (this.released) return;
    await this.worker.terminate();
  }
}

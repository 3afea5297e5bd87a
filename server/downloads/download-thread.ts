/**
 * `downloadFile` on a worker thread, with the same request, options and result.
 *
 * Why: a socket hands Node a fresh 64 KiB buffer per read. V8 counts those as external memory and
 * runs a full mark-compact of the isolate's heap every ~64 MB received. In Studio's main isolate
 * (tens of MB of live objects) each of those costs ~25 ms: measured, 1 GiB took ~1.6 s with
 * Studio's modules loaded against ~0.85 s in a small isolate, and the pauses stall the API and
 * the WebSocket relay for as long as a download runs. A worker has its own small heap and event
 * loop; the main thread only sees one progress message per tick.
 *
 * A thread runs one download at a time and, when it is done, waits `idleMs` (30 s) for the next
 * (`DownloadThreads`): starting a thread and loading its modules cost 60–100 ms of every download
 * (measured for issue 29 on a loaded 2-core machine, POST to the request going out), paid again
 * by each file of a queue. No thread runs before the first download, so an idle Studio holds
 * none; an idle one is unref'd (it never keeps the process alive) and at most one is kept.
 * Every download gets its own `downloadFile` call, abort controller and hasher in the thread; a
 * thread that failed (an uncaught error, an exit) is never used again.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
// app-root alone, not the config barrel: the worker imports this file and needs none of the rest.
import { APP_ROOT } from '../config/app-root.js';
import { DownloadError, type DownloadErrorKind } from './download-errors.js';
import type { DownloadOptions, DownloadProgress, DownloadRequest, DownloadResult } from './file-download.js';

/** What crosses to the thread: plain values (a `freeSpace` function cannot). */
export type ThreadDownloadOptions = Pick<DownloadOptions, 'stallTimeoutMs' | 'maxRetries' | 'backoffBaseMs' | 'backoffMaxMs'>;

/** Messages to the worker: start a download (it runs one at a time), or abort the one under way. */
export type DownloadThreadCommand = { type: 'start'; req: DownloadRequest; options: ThreadDownloadOptions } | { type: 'abort' };

/** Messages from the worker. */
export type DownloadThreadMessage =
  | { type: 'progress'; progress: DownloadProgress }
  | { type: 'done'; result: DownloadResult }
  | { type: 'error'; error: SerializedDownloadError };

/** A `DownloadError` as structured-clone data. */
export interface SerializedDownloadError {
  kind: DownloadErrorKind;
  message: string;
  status?: number;
  retryable: boolean;
  retryAfterMs?: number;
}

/** How long a thread waits for the next download before it ends. */
const IDLE_MS = 30_000;

/**
 * A worker for the entry module: tsc's compiled file in the app's `dist/` (found from the app root,
 * not from this module, whose URL is the bundle's when `npm start` runs the one-file server), or,
 * from the TypeScript sources (tsx, vitest), a small bootstrap that loads the `.ts` entry through
 * tsx's API (Node 20 applies no `--import` loader hooks to a worker's entry).
 */
function startWorker(): Worker {
  const compiled = path.join(APP_ROOT, 'dist', 'server', 'downloads', 'download-thread.worker.js');
  // No inherited flags: the thread needs none, and some (`--input-type`) would stop it loading.
  if (!import.meta.url.endsWith('.ts')) return new Worker(pathToFileURL(compiled), { execArgv: [] });
  const entry = JSON.stringify(new URL('./download-thread.worker.ts', import.meta.url).href);
  const bootstrap = `import('tsx/esm/api').then(({ tsImport }) => tsImport(${entry}, ${entry}));`;
  return new Worker(bootstrap, { eval: true });
}

/** The download threads of this process: one per running download, one kept idle; see the file comment. */
export class DownloadThreads {
  /** Threads started so far (tests see reuse in it). */
  started = 0;
  private idle: { worker: Worker; timer: NodeJS.Timeout } | null = null;

  constructor(private readonly idleMs = IDLE_MS) {}

  /** Download on a thread; rejects with a `DownloadError` like `downloadFile`. */
  download(req: DownloadRequest, opts: ThreadDownloadOptions & Pick<DownloadOptions, 'signal' | 'onProgress'> = {}): Promise<DownloadResult> {
    const { signal, onProgress, ...options } = opts;
    if (signal?.aborted) return Promise.reject(new DownloadError('aborted', 'The download was cancelled; the partial file is kept so it can resume'));
    const worker = this.take();
    return new Promise<DownloadResult>((resolve, reject) => {
      let settled = false;
      /** `reusable`: the thread finished this download normally and may take the next. */
      const settle = (reusable: boolean, outcome: () => void) => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
        if (reusable) this.release(worker);
        else void worker.terminate();
        outcome();
      };
      const onAbort = () => worker.postMessage({ type: 'abort' } satisfies DownloadThreadCommand);
      const onMessage = (message: DownloadThreadMessage) => {
        if (message.type === 'progress') {
          try {
            onProgress?.(message.progress);
          } catch {
            // A broken progress listener must not break the download.
          }
        } else if (message.type === 'done') {
          settle(true, () => resolve(message.result));
        } else {
          settle(true, () => reject(deserialize(message.error)));
        }
      };
      const onError = (err: Error) => settle(false, () => reject(new DownloadError('network', `The download thread failed: ${err.message}`, { cause: err })));
      const onExit = (code: number) => settle(false, () => reject(new DownloadError('network', `The download thread stopped unexpectedly (exit code ${code})`)));
      worker.on('message', onMessage).on('error', onError).on('exit', onExit);
      signal?.addEventListener('abort', onAbort, { once: true });
      worker.postMessage({ type: 'start', req, options } satisfies DownloadThreadCommand);
    });
  }

  /** Whether a thread is waiting for the next download. */
  hasIdle(): boolean {
    return this.idle !== null;
  }

  /** End the idle thread now (Studio stopping); running downloads keep theirs. */
  async closeIdle(): Promise<void> {
    const idle = this.idle;
    if (!idle) return;
    this.idle = null;
    clearTimeout(idle.timer);
    await idle.worker.terminate();
  }

  /** The idle thread, or a new one. */
  private take(): Worker {
    const idle = this.idle;
    if (idle) {
      this.idle = null;
      clearTimeout(idle.timer);
      idle.worker.ref();
      return idle.worker;
    }
    this.started += 1;
    const worker = startWorker();
    // Idle, it may still fail or exit: then it is no longer one to hand out.
    worker.on('exit', () => {
      if (this.idle?.worker === worker) void this.closeIdle();
    });
    worker.on('error', () => {
      if (this.idle?.worker === worker) void this.closeIdle();
    });
    return worker;
  }

  /** Keep a thread that finished its download for the next one (at most one; the others end). */
  private release(worker: Worker): void {
    if (this.idle) {
      void worker.terminate();
      return;
    }
    worker.unref();
    const timer = setTimeout(() => void this.closeIdle(), this.idleMs);
    timer.unref();
    this.idle = { worker, timer };
  }
}

/** The process's download threads (the queue's). */
export const downloadThreads = new DownloadThreads();

/** Download on a worker thread of `downloadThreads`; see the file comment. Rejects with a `DownloadError` like `downloadFile`. */
export function downloadInThread(
  req: DownloadRequest,
  opts: ThreadDownloadOptions & Pick<DownloadOptions, 'signal' | 'onProgress'> = {},
): Promise<DownloadResult> {
  return downloadThreads.download(req, opts);
}

/** A thrown value as data for `postMessage`. */
export function serializeDownloadError(err: unknown): SerializedDownloadError {
  if (err instanceof DownloadError) {
    return { kind: err.kind, message: err.message, status: err.status, retryable: err.retryable, retryAfterMs: err.retryAfterMs };
  }
  return { kind: 'network', message: err instanceof Error ? err.message : String(err), retryable: false };
}

function deserialize(error: SerializedDownloadError): DownloadError {
  return new DownloadError(error.kind, error.message, { status: error.status, retryable: error.retryable, retryAfterMs: error.retryAfterMs });
}

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
 * Each download has a thread of its own, started with it and ended when it is done: an idle Studio
 * holds none.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
// app-root alone, not the config barrel: the worker imports this file and needs none of the rest.
import { APP_ROOT } from '../config/app-root.js';
import { DownloadError, type DownloadErrorKind } from './download-errors.js';
import type { DownloadOptions, DownloadProgress, DownloadRequest, DownloadResult } from './download-options.js';

/** What crosses to the thread: plain values (a `freeSpace` function cannot). */
export type ThreadDownloadOptions = Pick<DownloadOptions, 'stallTimeoutMs' | 'maxRetries' | 'backoffBaseMs' | 'backoffMaxMs'>;

/** The thread's download (its `workerData`). */
export interface DownloadThreadJob {
  req: DownloadRequest;
  options: ThreadDownloadOptions;
}

/** The one message to the worker: abort the download. */
export type DownloadThreadCommand = { type: 'abort' };

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

/**
 * A worker for the entry module: tsc's compiled file in the app's `dist/` (found from the app root,
 * not from this module, whose URL is the bundle's when `npm start` runs the one-file server), or,
 * from the TypeScript sources (tsx, vitest), a small bootstrap that loads the `.ts` entry through
 * tsx's API (Node 20 applies no `--import` loader hooks to a worker's entry).
 */
function startWorker(workerData: DownloadThreadJob): Worker {
  const compiled = path.join(APP_ROOT, 'dist', 'server', 'downloads', 'download-thread.worker.js');
  // No inherited flags: the thread needs none, and some (`--input-type`) would stop it loading.
  if (!import.meta.url.endsWith('.ts')) return new Worker(pathToFileURL(compiled), { execArgv: [], workerData });
  const entry = JSON.stringify(new URL('./download-thread.worker.ts', import.meta.url).href);
  const bootstrap = `import('tsx/esm/api').then(({ tsImport }) => tsImport(${entry}, ${entry}));`;
  return new Worker(bootstrap, { eval: true, workerData });
}

/** Download on a worker thread of its own; see the file comment. Rejects with a `DownloadError` like `downloadFile`. */
export function downloadInThread(
  req: DownloadRequest,
  opts: ThreadDownloadOptions & Pick<DownloadOptions, 'signal' | 'onProgress'> = {},
): Promise<DownloadResult> {
  const { signal, onProgress, ...options } = opts;
  if (signal?.aborted) return Promise.reject(new DownloadError('aborted', 'The download was cancelled; the partial file is kept so it can resume'));
  const worker = startWorker({ req, options });
  return new Promise<DownloadResult>((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      outcome();
    };
    const onAbort = () => worker.postMessage({ type: 'abort' } satisfies DownloadThreadCommand);
    worker.on('message', (message: DownloadThreadMessage) => {
      if (message.type === 'progress') {
        try {
          onProgress?.(message.progress);
        } catch {
          // A broken progress listener must not break the download.
        }
      } else if (message.type === 'done') {
        settle(() => resolve(message.result));
      } else {
        settle(() => reject(deserialize(message.error)));
      }
    });
    worker.on('error', (err: Error) => settle(() => reject(new DownloadError('network', `The download thread failed: ${err.message}`, { cause: err }))));
    worker.on('exit', (code: number) => settle(() => reject(new DownloadError('network', `The download thread stopped unexpectedly (exit code ${code})`))));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
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

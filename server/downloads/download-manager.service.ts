/**
 * The download queue: rows in SQLite (`DownloadStore`), at most `max_concurrent` files moving at
 * once, each one a `downloadFile` call on its own worker thread (`downloadInThread`) into
 * `<final path>.part` beside its destination. The queue survives restarts: a row left
 * `downloading` goes back to `queued` on boot and resumes from the bytes in its part file.
 *
 * Live numbers (bytes, speed) are kept in memory while a file moves and saved to the row every
 * few seconds, so the status stream never waits on the disk.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type { Logger } from '../logging.js';
import type { SettingsStore } from '../db/settings.store.js';
import { formatSize } from '../free-space.js';
import { removePart, sidecarPath } from './download-resume.js';
import type { DownloadKind, DownloadRow, DownloadStore } from './download.store.js';
import type { DownloadStatus, DownloadStatusEntry } from '../contracts/downloads.contract.js';
import type { KnownEventType, Severity } from '../contracts/events.contract.js';
import { downloadInThread } from './download-thread.js';
import { DownloadError } from './download-errors.js';
import type { DownloadProgress, DownloadResult } from './download-options.js';
import type { ActivitySink, DownloadJob, DownloadResolver, Downloads, DownloadTarget, QueueState } from './downloads.types.js';

/** Downloads running at once when the setting was never changed. */
const DEFAULT_MAX_CONCURRENT = 2;
const MAX_CONCURRENT_LIMIT = 10;
const SETTING_KEY = 'max_concurrent';
const SAVE_PROGRESS_MS = 2000;

export interface DownloadManagerOptions {
  store: DownloadStore;
  settings: SettingsStore;
  resolve: DownloadResolver;
  activity: ActivitySink;
  logger: Logger;
  /** A file appeared on disk (the disk usage cache is stale). */
  onFilesChanged?: () => void;
  /** The event log (queued, failed with the reason, done, verified), so the Events page shows downloads. */
  events?: DownloadEvents;
}

/** The part of the event bus downloads use. */
export interface DownloadEvents {
  emit(type: KnownEventType, severity: Severity, message: string, data?: Record<string, unknown>): unknown;
}

interface Active {
  filename: string;
  kind: DownloadKind;
  controller: AbortController;
  /** Why we aborted it: a user's delete/cancel, or Studio stopping (the row then resumes on boot). */
  reason: 'cancel' | 'shutdown' | null;
  bytes: number;
  total: number | null;
  speed: number;
  /** Waiting for (or making) another attempt after a transient failure. */
  retry: { attempt: number; of: number; reason: string } | null;
  lastSaved: number;
  done: Promise<void>;
}

/** Clamp a requested concurrency to 1–10 (spec Limits). */
export function clampConcurrency(value: number): number {
  if (!Number.isFinite(value)) return DEFAULT_MAX_CONCURRENT;
  return Math.min(MAX_CONCURRENT_LIMIT, Math.max(1, Math.round(value)));
}

/** The part file of a final path (beside it, so the final rename never crosses a volume). */
export function partFileFor(finalFile: string): string {
  return `${finalFile}.part`;
}

/** The SQLite-backed download queue; see the file comment. */
export class DownloadManager implements Downloads {
  private readonly active = new Map<string, Active>();
  private limit: number;
  private running = false;

  constructor(private readonly opts: DownloadManagerOptions) {
    this.limit = clampConcurrency(opts.settings.getInt(SETTING_KEY, DEFAULT_MAX_CONCURRENT));
  }

  /** Boot: requeue what a stop or crash interrupted, then start as many as the limit allows. */
  start(): void {
    const rows = this.opts.store.recoverAfterBoot();
    const resumed = rows.filter((row) => row.status === 'queued');
    if (resumed.length > 0) {
      this.opts.activity.info(`Resuming ${resumed.length} download(s) after a restart`);
      this.opts.logger.info(`download queue: ${resumed.length} download(s) to resume`);
    }
    this.running = true;
    this.pump();
  }

  /** Abort every running download, keeping parts and rows so the next boot resumes them. */
  async stop(): Promise<void> {
    this.running = false;
    const running = [...this.active.values()];
    for (const active of running) {
      active.reason = 'shutdown';
      active.controller.abort();
    }
    await Promise.all(running.map((active) => active.done));
  }

  maxConcurrent(): number {
    return this.limit;
  }

  /** Store and apply a new limit: a higher one starts queued files now, a lower one lets running files finish. */
  setMaxConcurrent(value: number): number {
    const next = clampConcurrency(value);
    this.opts.settings.set(SETTING_KEY, String(next));
    if (next !== this.limit) this.opts.activity.info(`Concurrent downloads set to ${next}`);
    this.limit = next;
    this.pump();
    return next;
  }

  /**
   * Queue an entry's file. `created` is false when it was already queued or downloading (then
   * nothing changes); a failed or finished row is replaced and goes to the back of the queue.
   */
  enqueue(job: DownloadJob): { created: boolean; status: DownloadStatus } {
    const existing = this.opts.store.get(job.file);
    if (existing && (existing.status === 'queued' || existing.status === 'downloading')) {
      return { created: false, status: existing.status };
    }
    const partBytes = Math.max(0, fileSize(partFileFor(job.finalFile)));
    this.opts.store.enqueue(job.file, job.kind, partBytes, job.estimatedBytes);
    this.opts.activity.info(`Queued ${job.file}`);
    this.opts.events?.emit('download.queued', 'info', `Download of ${job.file} queued`, { file: job.file, kind: job.kind });
    this.pump();
    return { created: true, status: this.opts.store.get(job.file)?.status ?? 'queued' };
  }

  /** Stop a queued or running download of `filename` and forget it; true when there was one. */
  async cancel(filename: string): Promise<boolean> {
    const row = this.opts.store.get(filename);
    const active = this.active.get(filename);
    if (active) {
      active.reason = 'cancel';
      active.controller.abort();
      await active.done;
    }
    this.opts.store.remove(filename);
    const stopped = active !== undefined || row?.status === 'queued';
    if (stopped) this.opts.activity.info(`Cancelled ${filename}`);
    return stopped;
  }

  /** Forget a finished or failed row (the file was deleted). */
  forget(filename: string): void {
    if (!this.active.has(filename)) this.opts.store.remove(filename);
  }

  /** Remove the partial download of `finalFile` (part + sidecar); true when a part existed. */
  async discardPart(finalFile: string): Promise<boolean> {
    const part = partFileFor(finalFile);
    let existed = false;
    try {
      existed = (await fsp.stat(part)).isFile();
    } catch {}
    // Never rm a directory that happens to carry the name; the sidecar goes either way.
    if (existed) await removePart(part);
    else await fsp.rm(sidecarPath(part), { force: true });
    return existed;
  }

  /** Queue state per file, for the live `status` of catalog entries. */
  queueStates(): Map<string, QueueState> {
    const states = new Map<string, QueueState>();
    for (const row of this.opts.store.all()) {
      const state = this.active.has(row.filename) ? 'downloading' : row.status;
      if (state !== 'done') states.set(row.filename, state);
    }
    return states;
  }

  /** Every known download as the status stream shows it, keyed by file name. */
  statusEntries(): Record<string, DownloadStatusEntry> {
    const out: Record<string, DownloadStatusEntry> = {};
    for (const row of this.opts.store.all()) out[row.filename] = this.entryOf(row);
    return out;
  }

  /** Sum of the speeds of the running downloads (bytes/s). */
  globalSpeed(): number {
    let total = 0;
    for (const active of this.active.values()) total += active.speed;
    return Math.round(total);
  }

  /** The live entry of one row. */
  private entryOf(row: DownloadRow): DownloadStatusEntry {
    const live = this.active.get(row.filename);
    const status: DownloadStatus = live ? 'downloading' : row.status;
    const bytes = live ? live.bytes : row.bytes;
    const total = (live ? live.total : null) ?? row.total ?? 0;
    const percent = status === 'done' ? 100 : total > 0 ? Math.min(100, Math.round((bytes / total) * 1000) / 10) : 0;
    const entry: DownloadStatusEntry = {
      status,
      bytes_downloaded: bytes,
      bytes_total: total,
      speed: live ? Math.round(live.speed) : 0,
      percent,
    };
    if (live?.retry) entry.retry = live.retry;
    if (status === 'error') entry.error = row.error ?? 'The download failed';
    return entry;
  }

  /** Start queued rows until the limit is reached. */
  private pump(): void {
    while (this.running && this.active.size < this.limit) {
      const next = this.opts.store.nextQueued();
      if (!next) return;
      this.launch(next);
    }
  }

  private launch(row: DownloadRow): void {
    const { store, activity } = this.opts;
    let target: DownloadTarget;
    try {
      target = this.opts.resolve(row.filename, row.kind);
    } catch (err) {
      this.fail(row.filename, new DownloadError('not_found', (err as Error).message));
      return;
    }
    const finalFile = target.finalFile;
    const partFile = partFileFor(finalFile);
    const partBytes = Math.max(0, fileSize(partFile));
    store.markDownloading(row.filename, partBytes);
    activity.info(partBytes > 0 ? `Resuming ${row.filename} at ${formatSize(partBytes)}` : `Downloading ${row.filename}`);

    const active: Active = {
      filename: row.filename,
      kind: row.kind,
      controller: new AbortController(),
      reason: null,
      bytes: partBytes,
      total: row.total,
      speed: 0,
      retry: null,
      lastSaved: performance.now(),
      done: Promise.resolve(),
    };
    this.active.set(row.filename, active);
    const run = async (): Promise<DownloadResult> => {
      return downloadInThread(
        {
          url: target.url,
          headers: target.headers,
          partFile,
          finalFile,
          expectedSha256: target.expectedSha256,
          // The catalog's estimate: the download checks the free space with it before the first byte.
          expectedBytes: target.estimatedBytes,
          source: target.source,
          tokenName: target.tokenName,
        },
        { signal: active.controller.signal, onProgress: (p) => this.onProgress(active, p) },
      );
    };
    active.done = run()
      .then(
        (result) => this.succeeded(active, result, target.expectedSha256 !== null),
        (err: unknown) => this.failed(active, err),
      )
      .finally(() => {
        if (this.active.get(active.filename) === active) this.active.delete(active.filename);
        this.pump();
      });
  }

  private onProgress(active: Active, progress: DownloadProgress): void {
    active.bytes = progress.bytesDownloaded;
    active.total = progress.bytesTotal;
    active.speed = progress.speed;
    active.retry = progress.retry ?? null;
    const now = performance.now();
    if (now - active.lastSaved >= SAVE_PROGRESS_MS) {
      active.lastSaved = now;
      this.opts.store.saveProgress(active.filename, active.bytes, active.total);
    }
  }

  private succeeded(active: Active, result: DownloadResult, verified: boolean): void {
    this.opts.store.markDone(active.filename, result.bytes, result.sha256);
    this.opts.activity.ok(`Downloaded ${active.filename} (${formatSize(result.bytes)}${verified ? ', SHA-256 verified' : ''})`);
    const data = { file: active.filename, kind: active.kind, bytes: result.bytes, sha256: result.sha256 };
    this.opts.events?.emit('download.done', 'success', `Downloaded ${active.filename} (${formatSize(result.bytes)})`, data);
    if (verified) this.opts.events?.emit('download.verified', 'success', `${active.filename} matches its SHA-256`, data);
    this.opts.logger.info(`downloaded ${active.filename} (${result.bytes} bytes, sha256 ${result.sha256})`);
    this.opts.onFilesChanged?.();
  }

  private failed(active: Active, err: unknown): void {
    if (active.reason === 'cancel') return;
    if (active.reason === 'shutdown') {
      this.opts.store.saveProgress(active.filename, active.bytes, active.total);
      return;
    }
    const error = err instanceof DownloadError ? err : new DownloadError('network', (err as Error)?.message ?? String(err));
    this.fail(active.filename, error);
  }

  private fail(filename: string, error: DownloadError): void {
    this.opts.store.markError(filename, error.message, error.kind);
    this.opts.activity.error(`${filename}: ${error.message}`);
    this.opts.events?.emit('download.failed', 'error', `Download of ${filename} failed: ${error.message}`, { file: filename, error_kind: error.kind, reason: error.message });
    this.opts.logger.warn(`download of ${filename} failed (${error.kind}): ${error.message}`);
  }
}

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return -1;
  }
}

/**
 * The single-file download engine the download queue drives. One call fetches one URL into
 * `<partFile>`, hashing with SHA-256 while the bytes stream, resuming an existing part with
 * Range + If-Range, retrying transient failures with backoff, and renaming the part to its final
 * name only after the hash matched (`download-finish.ts`). It knows nothing of the database or the
 * catalogs.
 *
 * The hot loop (`pumpBody`) does the minimum per chunk: two counters and a push onto the part
 * writer's batch, one synchronous `writev` per 256 KiB (this runs on the download's own thread),
 * with no promise, timer or copy of ours per chunk (`node:http` hands plain Buffers, no web
 * streams; see `PartWriter` for the batch size). The SHA-256 runs on a worker thread that follows the part file as it is written
 * (`PartHasher`), so hashing shares no core with receiving. Progress, speed, stall detection and
 * telling the hasher about a slow download's last bytes run on one interval instead.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { DownloadError } from './download-errors.js';
import { classifyFailure, ensureDownloadSpace } from './download-io.js';
import { placeVerifiedPart } from './download-finish.js';
import {
  DEFAULT_MAX_RETRIES,
  DEFAULT_STALL_TIMEOUT_MS,
  type DownloadOptions,
  type DownloadProgress,
  type DownloadRequest,
  type DownloadResult,
} from './download-options.js';
import { PartWriter } from './download-part-writer.js';
import { openAnswer, type OpenedAnswer } from './download-answer.js';
import { fileSize, ifRangeOf, readSidecar, removePart, validatorOf, writeSidecar, type PartMeta } from './download-resume.js';
import { SpeedMeter } from './download-speed.js';
import { backoffDelay } from '../process/backoff.js';
import { sleep } from '../process/sleep.js';
import { PartHasher } from './part-hasher.js';

const MAX_RESTARTS = 3;
const PROGRESS_TICK_MS = 250;

/** Download `req.url` into `req.finalFile` via `req.partFile`; see the file comment. */
export async function downloadFile(req: DownloadRequest, opts: DownloadOptions = {}): Promise<DownloadResult> {
  return new DownloadRun(req, opts).execute();
}

/** The state of one `downloadFile` call. */
class DownloadRun {
  /** Follows the part file; replaced when the part starts over from zero. */
  private hasher: PartHasher | null = null;
  /** Bytes received into the part file (queued or written); its size once the writer closed. */
  private offset = 0;
  /** Bytes of the part file known to be on disk: the hasher may read up to here. */
  private onDisk = 0;
  /** Network bytes received during this call (the speed counts these). */
  private received = 0;
  private total: number | null;
  private meta: PartMeta | null = null;
  private readonly meter = new SpeedMeter();
  /** The retry being waited for or under way; cleared once bytes flow again. */
  private retry: { attempt: number; of: number; reason: string } | null = null;
  private attempt: { controller: AbortController; lastBytes: number; lastActivity: number } | null = null;
  /** The part file's writer while an attempt streams a body. */
  private writer: PartWriter | null = null;
  private stalled = false;
  private readonly stallTimeoutMs: number;

  constructor(
    private readonly req: DownloadRequest,
    private readonly opts: DownloadOptions,
  ) {
    this.total = req.expectedBytes ?? null;
    this.stallTimeoutMs = opts.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS;
  }

  async execute(): Promise<DownloadResult> {
    this.throwIfAborted();
    await fsp.mkdir(path.dirname(this.req.partFile), { recursive: true });
    try {
      await this.prepareResume();
      if (this.req.expectedBytes != null) await this.ensureFreeSpace(this.req.expectedBytes - this.offset);
      const tickMs = Math.max(10, Math.min(PROGRESS_TICK_MS, this.stallTimeoutMs / 4));
      const timer = setInterval(() => this.tick(), tickMs);
      this.emitProgress();
      try {
        await this.runAttempts();
      } finally {
        clearInterval(timer);
      }
      this.meter.sample(this.received);
      this.emitProgress();
      return await this.finish();
    } finally {
      await this.hasher?.dispose();
    }
  }

  /** Follow the part file with a new hasher that starts with its first `bytes` (already on disk). */
  private async restartHasher(bytes: number): Promise<void> {
    await this.hasher?.dispose();
    this.hasher = new PartHasher(this.req.partFile);
    this.onDisk = bytes;
    this.hasher.advance(bytes);
  }

  /** Trust an existing part only if its sidecar says it came from this URL and can be validated. */
  private async prepareResume(): Promise<void> {
    const size = await fileSize(this.req.partFile);
    const meta = await readSidecar(this.req.partFile);
    const expected = this.req.expectedSha256?.toLowerCase() ?? null;
    const usable =
      size > 0 &&
      meta !== null &&
      meta.url === this.req.url &&
      (meta.sha256?.toLowerCase() ?? null) === expected &&
      // Without a validator only a known hash can catch a changed remote file.
      (ifRangeOf(meta) !== null || expected !== null);
    if (usable) {
      this.meta = meta;
      // The head is hashed on the worker while the request for the tail goes out.
      this.offset = size;
      this.total = meta.total ?? this.total;
    } else if (size >= 0 || meta) {
      await removePart(this.req.partFile);
    }
    await this.restartHasher(this.offset);
  }

  private async runAttempts(): Promise<void> {
    const maxRetries = this.opts.maxRetries ?? DEFAULT_MAX_RETRIES;
    let failures = 0;
    let restarts = 0;
    for (;;) {
      this.throwIfAborted();
      const receivedBefore = this.received;
      try {
        if ((await this.runAttempt()) === 'complete') return;
        // The server could not continue our part; start over without counting it as a failure.
        restarts += 1;
        if (restarts > MAX_RESTARTS) {
          throw new DownloadError('http', 'The server keeps answering range requests inconsistently; giving up');
        }
      } catch (err) {
        const error = this.classify(err);
        if (!error.retryable) throw error;
        await this.resyncWithDisk().catch((resyncError: unknown) => {
          throw this.classify(resyncError);
        });
        if (this.received > receivedBefore) failures = 0;
        failures += 1;
        if (failures > maxRetries) {
          // Counted as the UI counts them ("retrying 5 of 5"): the retries, not the first try as well.
          throw new DownloadError(error.kind, `${error.message} (gave up after ${maxRetries} ${maxRetries === 1 ? 'retry' : 'retries'})`, {
            status: error.status,
            cause: error,
          });
        }
        // Users see "retrying 2 of 5" while we wait, not a frozen bar.
        this.retry = { attempt: failures, of: maxRetries, reason: error.message };
        this.emitProgress();
        await sleep(this.backoffMs(failures, error), this.opts.signal);
      }
    }
  }

  private async runAttempt(): Promise<'complete' | 'restart'> {
    const controller = new AbortController();
    const signal = this.opts.signal;
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    this.stalled = false;
    this.attempt = { controller, lastBytes: this.received, lastActivity: performance.now() };
    let out: PartWriter | null = null;
    let answer: OpenedAnswer | null = null;
    try {
      const resuming = this.offset > 0;
      const common: Record<string, string> = { 'Accept-Encoding': 'identity' };
      if (resuming) {
        common.Range = `bytes=${this.offset}-`;
        const validator = ifRangeOf(this.meta);
        if (validator) common['If-Range'] = validator;
      }
      answer = await openAnswer({
        url: this.req.url,
        originHeaders: this.req.headers ?? {},
        commonHeaders: common,
        signal: controller.signal,
        offset: this.offset,
        context: { source: this.req.source, tokenName: this.req.tokenName },
      });
      const verdict = answer.verdict;
      if (verdict.kind === 'complete') {
        this.total = this.offset;
        return 'complete';
      }
      if (verdict.kind === 'restart') {
        await this.restartFromZero(true);
        return 'restart';
      }
      if (verdict.kind === 'append') {
        this.total = verdict.total ?? this.total;
      } else {
        if (resuming) await this.restartFromZero(false);
        this.total = verdict.total ?? this.req.expectedBytes ?? null;
      }
      if (this.total !== null) await this.ensureFreeSpace(this.total - this.offset);
      if (!resuming || !this.meta) {
        this.meta = {
          url: this.req.url,
          ...validatorOf(answer.headers),
          total: this.total,
          sha256: this.req.expectedSha256?.toLowerCase() ?? null,
        };
        writeSidecar(this.req.partFile, this.meta);
      }
      out = await PartWriter.open(this.req.partFile, this.offset > 0);
      out.onWritten = (bytes) => {
        this.onDisk += bytes;
        this.hasher?.advance(this.onDisk);
      };
      this.writer = out;
      await answer.pump(out, (bytes) => {
        this.offset += bytes;
        this.received += bytes;
        this.retry = null;
      });
      const writer = out;
      out = null;
      this.writer = null;
      await writer.close();
      if (this.total !== null && this.offset !== this.total) {
        throw new DownloadError('network', `The connection closed early (${this.offset} of ${this.total} bytes)`, {
          retryable: true,
        });
      }
      return 'complete';
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.attempt = null;
      this.writer = null;
      // Frees the socket of an answer we did not read to the end (416, a restart, a failure).
      answer?.release();
      // Whatever arrived was hashed, so it goes to disk too; a failed attempt resyncs with the disk.
      if (out) await out.close().catch(() => undefined);
    }
  }

  private tick(): void {
    const now = performance.now();
    this.meter.sample(this.received);
    // A slow download takes long to fill a batch or a report's worth of bytes: to disk, and the hasher follows, anyway.
    this.writer?.flushPending();
    const attempt = this.attempt;
    if (attempt) {
      if (this.received !== attempt.lastBytes) {
        attempt.lastBytes = this.received;
        attempt.lastActivity = now;
      } else if (now - attempt.lastActivity >= this.stallTimeoutMs && !attempt.controller.signal.aborted) {
        this.stalled = true;
        attempt.controller.abort(new Error('stalled'));
      }
    }
    this.emitProgress();
  }

  private emitProgress(): void {
    if (!this.opts.onProgress) return;
    try {
      const progress: DownloadProgress = { bytesDownloaded: this.offset, bytesTotal: this.total, speed: this.meter.speed() };
      if (this.retry) progress.retry = this.retry;
      this.opts.onProgress(progress);
    } catch {
      // A broken progress listener must not break the download.
    }
  }

  /** Forget the part: a fresh hasher, offset 0, and (for a new request) no part or sidecar on disk. */
  private async restartFromZero(removeFiles: boolean): Promise<void> {
    await this.restartHasher(0);
    this.offset = 0;
    this.meta = null;
    if (removeFiles) await removePart(this.req.partFile);
  }

  /** After a failed attempt the part file is the truth (a write may have failed part-way). */
  private async resyncWithDisk(): Promise<void> {
    const size = Math.max(0, await fileSize(this.req.partFile));
    if (size === this.offset && size === this.onDisk) return;
    this.offset = size;
    if (size >= this.onDisk) {
      this.onDisk = size;
      this.hasher?.advance(size);
    } else {
      // Shorter than what was written: never seen on an append-only file; hash it again.
      await this.restartHasher(size);
    }
  }

  private ensureFreeSpace(remaining: number): Promise<void> {
    return ensureDownloadSpace(path.dirname(this.req.partFile), remaining, `downloading ${path.basename(this.req.finalFile)}`, this.opts.freeSpace);
  }

  private async finish(): Promise<DownloadResult> {
    const hasher = this.hasher;
    if (!hasher) throw new Error('finish() without a hasher');
    const digest = hasher.digest(this.offset).catch((err: unknown) => {
      throw this.classify(err);
    });
    return { sha256: await placeVerifiedPart(this.req, digest), bytes: this.offset };
  }

  private classify(err: unknown): DownloadError {
    return classifyFailure(err, {
      aborted: this.opts.signal?.aborted ?? false,
      stalled: this.stalled,
      stallTimeoutMs: this.stallTimeoutMs,
    });
  }

  /** The backoff with jitter (many queued downloads failing together do not retry in step), or longer when the server asked. */
  private backoffMs(failures: number, error: DownloadError): number {
    const max = this.opts.backoffMaxMs ?? 30_000;
    const jittered = backoffDelay(failures, { baseMs: this.opts.backoffBaseMs ?? 1000, maxMs: max }) * (0.5 + Math.random() * 0.5);
    return error.retryAfterMs === undefined ? jittered : Math.max(jittered, Math.min(error.retryAfterMs, max));
  }

  private throwIfAborted(): void {
    if (this.opts.signal?.aborted) {
      throw new DownloadError('aborted', 'The download was cancelled; the partial file is kept so it can resume');
    }
  }
}

/**
 * Thumbnails for the asset browser: images through sharp, videos by grabbing the first frame
 * with ffmpeg (a child process with a timeout). Each is generated once and cached on disk under
 * `<cacheDir>/<inputs|outputs>/<path>.jpg`; a cached thumbnail is used while it is newer than its
 * source. Concurrent requests for one file share one generation, and at most a couple run at a
 * time (a folder of 200 videos must not start 200 ffmpegs).
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { DomainError } from '../domain-error.js';
import type { Logger } from '../logging.js';
import { mediaKindOf } from '../media-types.js';
import type { AssetType } from './asset-types.js';
import { FfmpegMissingError, firstVideoFrame } from './video-frame.js';
import { writeJpegThumb } from './jpeg-thumb.js';

export interface ThumbnailOptions {
  cacheDir: string;
  logger: Logger;
  /** The ffmpeg executable (default `ffmpeg` on PATH). */
  ffmpegPath?: string;
  /** The environment ffmpeg is started with (filtered again through the child allowlist). */
  env?: NodeJS.ProcessEnv;
  /** Longest side in pixels. Default 320. */
  size?: number;
  /** Per-video deadline for ffmpeg. Default 20 s. */
  timeoutMs?: number;
  concurrency?: number;
}

const MAX_REMEMBERED_FAILURES = 1000;

/** Generates and caches thumbnails. */
export class Thumbnails {
  private readonly inflight = new Map<string, Promise<string>>();
  /** Sources that failed, keyed with their mtime, so a broken file is not retried on every view. */
  private readonly failures = new Map<string, string>();
  private readonly children = new Set<ChildProcess>();
  private readonly waiting: Array<() => void> = [];
  private running = 0;
  private ffmpegMissing = false;

  /** Where thumbnails are cached (the folder they are served from). */
  get cacheDir(): string {
    return this.opts.cacheDir;
  }
  private readonly size: number;

  constructor(private readonly opts: ThumbnailOptions) {
    this.size = opts.size ?? 320;
  }

  /** The cached JPEG of `rel` under the root of `type`, generated when missing or stale. */
  async get(type: AssetType, source: string, rel: string): Promise<string> {
    const media = mediaKindOf(path.basename(source));
    if (!media) throw new DomainError('not_found', `No thumbnail for ${rel}: not an image or a video`);
    let sourceStat: fs.Stats;
    try {
      sourceStat = await fsp.stat(source);
    } catch {
      throw new DomainError('not_found', `Not found: ${rel}`);
    }
    if (!sourceStat.isFile()) throw new DomainError('not_found', `Not a file: ${rel}`);
    const target = this.cachePath(type, rel);
    const cached = await fsp.stat(target).catch(() => null);
    if (cached && cached.mtimeMs >= sourceStat.mtimeMs) return target;

    const failureKey = `${target}@${sourceStat.mtimeMs}`;
    const failure = this.failures.get(failureKey);
    if (failure) throw new DomainError('not_found', failure);
    if (media === 'video' && this.ffmpegMissing) throw new DomainError('not_found', 'Video thumbnails need ffmpeg, which is not installed');

    let pending = this.inflight.get(target);
    if (!pending) {
      pending = this.withSlot(() => this.generate(media, source, target)).finally(() => this.inflight.delete(target));
      this.inflight.set(target, pending);
    }
    try {
      return await pending;
    } catch (err) {
      const message = err instanceof DomainError ? err.message : `No thumbnail for ${rel}: ${(err as Error).message}`;
      if (!(media === 'video' && this.ffmpegMissing)) this.rememberFailure(failureKey, message);
      throw new DomainError('not_found', message);
    }
  }

  /** Drop cached thumbnails of a deleted file or folder. */
  async forget(type: AssetType, rel: string): Promise<void> {
    await fsp.rm(this.cachePath(type, rel), { force: true });
    await fsp.rm(path.join(this.opts.cacheDir, type, ...rel.split('/')), { recursive: true, force: true });
  }

  /** Kill running ffmpeg children (shutdown). */
  stop(): void {
    for (const child of this.children) child.kill('SIGKILL');
    this.children.clear();
  }

  private cachePath(type: AssetType, rel: string): string {
    return `${path.join(this.opts.cacheDir, type, ...rel.split('/'))}.jpg`;
  }

  private async generate(media: 'image' | 'video', source: string, target: string): Promise<string> {
    await fsp.mkdir(path.dirname(target), { recursive: true });
    const input = media === 'image' ? source : await this.firstFrame(source);
    await writeJpegThumb(input, target, this.size);
    return target;
  }

  /** The first frame of a video (see video-frame.ts); remembers a missing ffmpeg. */
  private async firstFrame(source: string): Promise<Buffer> {
    try {
      return await firstVideoFrame(source, {
        ffmpegPath: this.opts.ffmpegPath,
        env: this.opts.env,
        timeoutMs: this.opts.timeoutMs,
        track: (child, running) => (running ? this.children.add(child) : this.children.delete(child)),
      });
    } catch (err) {
      if (!(err instanceof FfmpegMissingError)) throw err;
      this.ffmpegMissing = true;
      this.opts.logger.warn(`${err.message}: video thumbnails are off until it is installed and Studio restarts`);
      throw new DomainError('not_found', 'Video thumbnails need ffmpeg, which is not installed');
    }
  }

  private async withSlot<T>(task: () => Promise<T>): Promise<T> {
    const limit = this.opts.concurrency ?? 2;
    if (this.running >= limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running += 1;
    try {
      return await task();
    } finally {
      this.running -= 1;
      this.waiting.shift()?.();
    }
  }

  private rememberFailure(key: string, message: string): void {
    if (this.failures.size >= MAX_REMEMBERED_FAILURES) {
      const oldest = this.failures.keys().next().value;
      if (oldest !== undefined) this.failures.delete(oldest);
    }
    this.failures.set(key, message);
  }
}

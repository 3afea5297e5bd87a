/**
 * Thumbnails for the asset browser: images through sharp, videos by grabbing the first frame
 * with ffmpeg (a child process with a timeout). Each is generated once and cached on disk under
 * `<cacheDir>/<inputs|outputs>/<path>.jpg`; a cached thumbnail is used while it is newer than its
 * source. Concurrent requests for one file share one generation, and at most a couple run at a
 * time (a folder of 200 videos must not start 200 ffmpegs).
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { DomainError } from '../domain-error.js';
import { mediaKindOf } from '../media-types.js';
import type { AssetType } from './asset-types.js';
import { VideoFrames, type VideoFrameOptions } from './video-frame.js';
import { writeJpegThumb } from './jpeg-thumb.js';

export interface ThumbnailOptions extends Omit<VideoFrameOptions, 'withoutFfmpeg'> {
  cacheDir: string;
  /** Longest side in pixels. Default 320. */
  size?: number;
}

const MAX_REMEMBERED_FAILURES = 1000;
/** A folder of 200 videos must not start 200 ffmpegs. */
const THUMBNAILS_AT_ONCE = 2;

/** Generates and caches thumbnails. */
export class Thumbnails {
  private readonly inflight = new Map<string, Promise<string>>();
  /** Sources that failed, keyed with their mtime, so a broken file is not retried on every view. */
  private readonly failures = new Map<string, string>();
  private readonly frames: VideoFrames;
  private readonly waiting: Array<() => void> = [];
  private running = 0;

  /** Where thumbnails are cached (the folder they are served from). */
  get cacheDir(): string {
    return this.opts.cacheDir;
  }
  private readonly size: number;

  constructor(private readonly opts: ThumbnailOptions) {
    this.size = opts.size ?? 320;
    this.frames = new VideoFrames({ ...opts, withoutFfmpeg: 'video thumbnails are off until it is installed and Studio restarts' });
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
    if (media === 'video' && this.frames.missing) throw new DomainError('not_found', 'Video thumbnails need ffmpeg, which is not installed');

    let pending = this.inflight.get(target);
    if (!pending) {
      pending = this.withSlot(() => this.generate(media, source, target)).finally(() => this.inflight.delete(target));
      this.inflight.set(target, pending);
    }
    try {
      return await pending;
    } catch (err) {
      const message = err instanceof DomainError ? err.message : `No thumbnail for ${rel}: ${(err as Error).message}`;
      if (!(media === 'video' && this.frames.missing)) this.rememberFailure(failureKey, message);
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
    this.frames.stop();
  }

  private cachePath(type: AssetType, rel: string): string {
    return `${path.join(this.opts.cacheDir, type, ...rel.split('/'))}.jpg`;
  }

  private async generate(media: 'image' | 'video', source: string, target: string): Promise<string> {
    await fsp.mkdir(path.dirname(target), { recursive: true });
    const input = media === 'image' ? source : await this.frames.first(source);
    if (input === null) throw new DomainError('not_found', 'Video thumbnails need ffmpeg, which is not installed');
    await writeJpegThumb(input, target, this.size);
    return target;
  }

  private async withSlot<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= THUMBNAILS_AT_ONCE) await new Promise<void>((resolve) => this.waiting.push(resolve));
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

/**
 * Gallery thumbnails: JPEGs at most 320 px on the longest side beside the media
 * (`<id>.thumb.jpg`). Images go through sharp (libvips shrinks JPEGs while decoding, as
 * `vipsthumbnail` does); videos through their first frame (ffmpeg, see assets/video-frame.ts).
 * Without ffmpeg a video gets no thumbnail and the thumb route serves a placeholder drawn once.
 */
import type { ChildProcess } from 'node:child_process';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { writeJpegThumb } from '../assets/jpeg-thumb.js';
import { FfmpegMissingError, firstVideoFrame } from '../assets/video-frame.js';
import type { Logger } from '../logging.js';

export interface GalleryThumbsOptions {
  logger: Logger;
  /** The ffmpeg executable (default `ffmpeg` on PATH). */
  ffmpegPath?: string;
  /** The environment ffmpeg is started with (filtered again through the child allowlist). */
  env?: NodeJS.ProcessEnv;
  /** Longest side in pixels. Default 320. */
  size?: number;
}

const PLACEHOLDER_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="180" viewBox="0 0 320 180">
<rect width="320" height="180" fill="#2b2f36"/><circle cx="160" cy="80" r="34" fill="#4a505a"/>
<path d="M150 62 L178 80 L150 98 Z" fill="#d8dce3"/>
<text x="160" y="150" font-family="sans-serif" font-size="15" fill="#d8dce3" text-anchor="middle">video (no ffmpeg for a preview)</text></svg>`;

export class GalleryThumbs {
  private readonly children = new Set<ChildProcess>();
  private ffmpegMissing = false;
  private placeholderFile: Promise<string> | null = null;

  constructor(private readonly opts: GalleryThumbsOptions) {}

  /**
   * Write the thumbnail of `source` to `target`; false when none could be made (no ffmpeg for a
   * video, or undecodable media), which the thumb route answers with the media or the placeholder.
   */
  async make(source: string, target: string, mediaType: 'image' | 'video'): Promise<boolean> {
    try {
      const input = mediaType === 'image' ? source : await this.frame(source);
      if (input === null) return false;
      await writeJpegThumb(input, target, this.opts.size ?? 320);
      return true;
    } catch (err) {
      this.opts.logger.warn(`no gallery thumbnail for ${path.basename(source)}: ${(err as Error).message}`);
      return false;
    }
  }

  /** The placeholder JPEG for videos without a thumbnail (drawn into `dir` once). */
  placeholder(dir: string): Promise<string> {
    this.placeholderFile ??= (async () => {
      const file = path.join(dir, '.video-placeholder.jpg');
      await fsp.mkdir(dir, { recursive: true });
      await writeJpegThumb(Buffer.from(PLACEHOLDER_SVG), file, 320);
      return file;
    })().catch((err: unknown) => {
      this.placeholderFile = null;
      throw err;
    });
    return this.placeholderFile;
  }

  /** Kill running ffmpeg children (shutdown). */
  stop(): void {
    for (const child of this.children) child.kill('SIGKILL');
    this.children.clear();
  }

  private async frame(source: string): Promise<Buffer | null> {
    if (this.ffmpegMissing) return null;
    try {
      return await firstVideoFrame(source, {
        ffmpegPath: this.opts.ffmpegPath,
        env: this.opts.env,
        track: (child, running) => (running ? this.children.add(child) : this.children.delete(child)),
      });
    } catch (err) {
      if (!(err instanceof FfmpegMissingError)) throw err;
      this.ffmpegMissing = true;
      this.opts.logger.warn(`${err.message}: gallery videos get a placeholder instead of a thumbnail`);
      return null;
    }
  }
}

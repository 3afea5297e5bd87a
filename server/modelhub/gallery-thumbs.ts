/**
 * Gallery thumbnails: JPEGs at most 320 px on the longest side beside the media
 * (`<id>.thumb.jpg`). Images go through sharp (libvips shrinks JPEGs while decoding, as
 * `vipsthumbnail` does); videos through their first frame (ffmpeg, see assets/video-frame.ts).
 * Without ffmpeg a video gets no thumbnail and the thumb route serves a placeholder drawn once.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { writeJpegThumb } from '../assets/jpeg-thumb.js';
import { VideoFrames, type VideoFrameOptions } from '../assets/video-frame.js';

export interface GalleryThumbsOptions extends Omit<VideoFrameOptions, 'withoutFfmpeg'> {
  /** Longest side in pixels. Default 320. */
  size?: number;
}

const PLACEHOLDER_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="180" viewBox="0 0 320 180">
<rect width="320" height="180" fill="#2b2f36"/><circle cx="160" cy="80" r="34" fill="#4a505a"/>
<path d="M150 62 L178 80 L150 98 Z" fill="#d8dce3"/>
<text x="160" y="150" font-family="sans-serif" font-size="15" fill="#d8dce3" text-anchor="middle">video (no ffmpeg for a preview)</text></svg>`;

export class GalleryThumbs {
  private readonly frames: VideoFrames;
  private placeholderFile: Promise<string> | null = null;

  constructor(private readonly opts: GalleryThumbsOptions) {
    this.frames = new VideoFrames({ ...opts, withoutFfmpeg: 'gallery videos get a placeholder instead of a thumbnail' });
  }

  /**
   * Write the thumbnail of `source` to `target`; false when none could be made (no ffmpeg for a
   * video, or undecodable media), which the thumb route answers with the media or the placeholder.
   */
  async make(source: string, target: string, mediaType: 'image' | 'video'): Promise<boolean> {
    try {
      const input = mediaType === 'image' ? source : await this.frames.first(source);
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
    this.frames.stop();
  }
}

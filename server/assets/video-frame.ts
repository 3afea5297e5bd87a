/**
 * The first frame of a video as PNG bytes, through ffmpeg (a child with the allowlisted
 * environment and a deadline). Only files that start like a video container get there, and
 * ffmpeg may open local files only: a crafted playlist (HLS, concat) cannot make it read other
 * files or reach the network. Shared by the asset browser's and the gallery's thumbnails: each
 * keeps its own `VideoFrames`, which finds out once that ffmpeg is missing and kills its running
 * children at shutdown.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { looksLikeVideo, readHead } from '../http/file-sniff.js';
import type { Logger } from '../logging.js';
import { childEnvironment } from '../process/child-env.js';

const MAX_FRAME_BYTES = 64 * 1024 * 1024;

/** ffmpeg is not installed (or not where it was said to be). */
class FfmpegMissingError extends Error {}

export interface VideoFrameOptions {
  logger: Logger;
  /** The ffmpeg executable (default `ffmpeg` on PATH). */
  ffmpegPath?: string;
  /** The environment ffmpeg is started with (filtered again through the child allowlist). */
  env?: NodeJS.ProcessEnv;
  /** Deadline for ffmpeg. Default 20 s. */
  timeoutMs?: number;
  /** Logged once, after "ffmpeg was not found": what goes without it. */
  withoutFfmpeg: string;
}

/** First frames of videos for one user of them. */
export class VideoFrames {
  private readonly children = new Set<ChildProcess>();
  /** ffmpeg could not be started once: no more tries until Studio restarts. */
  missing = false;

  constructor(private readonly opts: VideoFrameOptions) {}

  /** The first frame of `source` as PNG bytes; null when ffmpeg is missing. */
  async first(source: string): Promise<Buffer | null> {
    if (this.missing) return null;
    try {
      return await firstVideoFrame(source, this.opts, this.children);
    } catch (err) {
      if (!(err instanceof FfmpegMissingError)) throw err;
      this.missing = true;
      this.opts.logger.warn(`${err.message}: ${this.opts.withoutFfmpeg}`);
      return null;
    }
  }

  /** Kill running ffmpeg children (shutdown). */
  stop(): void {
    for (const child of this.children) child.kill('SIGKILL');
    this.children.clear();
  }
}

/** The first frame of `source` as PNG bytes, its ffmpeg child in `children` while it runs. */
async function firstVideoFrame(source: string, opts: VideoFrameOptions, children: Set<ChildProcess>): Promise<Buffer> {
  if (!looksLikeVideo(await readHead(source))) throw new Error('not a video file (its first bytes match no known container)');
  const ffmpeg = opts.ffmpegPath ?? 'ffmpeg';
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const args = ['-hide_banner', '-loglevel', 'error', '-nostdin', '-protocol_whitelist', 'file', '-i', `file:${source}`, '-frames:v', '1', '-f', 'image2pipe', '-c:v', 'png', '-'];
  return new Promise((resolve, reject) => {
    const child = spawn(ffmpeg, args, { stdio: ['ignore', 'pipe', 'pipe'], env: childEnvironment(opts.env ?? process.env) });
    children.add(child);
    const chunks: Buffer[] = [];
    let bytes = 0;
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`ffmpeg took longer than ${Math.round(timeoutMs / 1000)} s`));
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > MAX_FRAME_BYTES) child.kill('SIGKILL');
      else chunks.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 2000) stderr += chunk.toString('utf8');
    });
    child.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      children.delete(child);
      reject(err.code === 'ENOENT' ? new FfmpegMissingError(`ffmpeg was not found ("${ffmpeg}")`) : err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      children.delete(child);
      const frame = Buffer.concat(chunks);
      if (code === 0 && frame.length > 0) resolve(frame);
      else reject(new Error(`ffmpeg could not read a frame${stderr ? `: ${stderr.trim().split('\n').pop() ?? ''}` : ` (exit ${code})`}`));
    });
  });
}

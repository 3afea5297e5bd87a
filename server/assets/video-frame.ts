/**
 * The first frame of a video as PNG bytes, through ffmpeg (a child with the allowlisted
 * environment and a deadline). Only files that start like a video container get there, and
 * ffmpeg may open local files only: a crafted playlist (HLS, concat) cannot make it read other
 * files or reach the network. Shared by the asset browser's and the gallery's thumbnails.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { looksLikeVideo, readHead } from '../http/file-sniff.js';
import { childEnvironment } from '../process/child-env.js';

const MAX_FRAME_BYTES = 64 * 1024 * 1024;

/** ffmpeg is not installed (or not where it was said to be). */
export class FfmpegMissingError extends Error {}

export interface VideoFrameOptions {
  /** The ffmpeg executable (default `ffmpeg` on PATH). */
  ffmpegPath?: string;
  /** The environment ffmpeg is started with (filtered again through the child allowlist). */
  env?: NodeJS.ProcessEnv;
  /** Deadline for ffmpeg. Default 20 s. */
  timeoutMs?: number;
  /** Told about the child while it runs (so a shutdown can kill it); called again with null at its end. */
  track?: (child: ChildProcess, running: boolean) => void;
}

/** The first frame of `source` as PNG bytes; `FfmpegMissingError` when ffmpeg cannot be started. */
export async function firstVideoFrame(source: string, opts: VideoFrameOptions = {}): Promise<Buffer> {
  if (!looksLikeVideo(await readHead(source))) throw new Error('not a video file (its first bytes match no known container)');
  const ffmpeg = opts.ffmpegPath ?? 'ffmpeg';
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const args = ['-hide_banner', '-loglevel', 'error', '-nostdin', '-protocol_whitelist', 'file', '-i', `file:${source}`, '-frames:v', '1', '-f', 'image2pipe', '-c:v', 'png', '-'];
  return new Promise((resolve, reject) => {
    const child = spawn(ffmpeg, args, { stdio: ['ignore', 'pipe', 'pipe'], env: childEnvironment(opts.env ?? process.env) });
    opts.track?.(child, true);
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
      opts.track?.(child, false);
      reject(err.code === 'ENOENT' ? new FfmpegMissingError(`ffmpeg was not found ("${ffmpeg}")`) : err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      opts.track?.(child, false);
      const frame = Buffer.concat(chunks);
      if (code === 0 && frame.length > 0) resolve(frame);
      else reject(new Error(`ffmpeg could not read a frame${stderr ? `: ${stderr.trim().split('\n').pop() ?? ''}` : ` (exit ${code})`}`));
    });
  });
}

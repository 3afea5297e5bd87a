/**
 * A video's container comment, set by ffmpeg with every stream copied (`-c copy`: no frame is
 * decoded or encoded) and the file's other tags kept (the engine's `prompt`/`workflow` among
 * them: MP4 and MOV keep custom keys only with `use_metadata_tags`). Written to a temp file in
 * the same folder, then renamed over the original.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { childEnvironment } from '../process/child-env.js';
import { runCommand } from '../process/run-command.js';

export interface VideoCommentOptions {
  ffmpegPath?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

const QUICKTIME = new Set(['.mp4', '.m4v', '.mov']);

/** Set `comment` as the container comment of `file`, in place. */
export async function setVideoComment(file: string, comment: string, opts: VideoCommentOptions = {}): Promise<void> {
  const ext = path.extname(file).toLowerCase();
  const tmp = path.join(path.dirname(file), `.${path.basename(file, ext)}.${process.pid}.stamp${ext}`);
  const args = ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y', '-protocol_whitelist', 'file', '-i', `file:${file}`, '-map', '0', '-c', 'copy', '-map_metadata', '0'];
  if (QUICKTIME.has(ext)) args.push('-movflags', 'use_metadata_tags');
  args.push('-metadata', `comment=${comment}`, `file:${tmp}`);
  try {
    const result = await runCommand(opts.ffmpegPath ?? 'ffmpeg', args, { env: childEnvironment(opts.env ?? process.env), timeoutMs: opts.timeoutMs ?? 60_000 });
    if (result.timedOut) throw new Error('ffmpeg took too long');
    if (result.code !== 0) throw new Error(`ffmpeg failed (exit ${result.code ?? 'none'}): ${result.stderr.trim().slice(-300)}`);
    await fsp.rename(tmp, file);
  } finally {
    await fsp.rm(tmp, { force: true });
  }
}

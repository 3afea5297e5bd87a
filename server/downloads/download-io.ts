/**
 * Plumbing for the downloader: failure classification, free space, and turning
 * low-level errors into readable text.
 */
import fsp from 'node:fs/promises';
import { DownloadError } from './download-errors.js';
import { errnoCode } from '../fs-durable.js';

/**
 * The DownloadError for anything a download attempt threw: cancellation and stalls first (the
 * abort that ends them surfaces as an unrelated AbortError), then a full disk, other local file
 * errors (not retried), and everything else as a retryable network error.
 */
export function classifyFailure(
  err: unknown,
  state: { aborted: boolean; stalled: boolean; stallTimeoutMs: number },
): DownloadError {
  if (err instanceof DownloadError) return err;
  if (state.aborted) {
    return new DownloadError('aborted', 'The download was cancelled; the partial file is kept so it can resume', { cause: err });
  }
  if (state.stalled) {
    return new DownloadError('stalled', `No data arrived for ${Math.round(state.stallTimeoutMs / 1000)} s (the connection stalled)`, {
      retryable: true,
      cause: err,
    });
  }
  const code = errnoCode(err);
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new DownloadError('disk_full', 'The disk is full: free some space, then resume the download', { cause: err });
  }
  if (isLocalFileError(err)) {
    return new DownloadError('network', `Cannot write the download to disk: ${(err as Error).message}`, { cause: err });
  }
  return new DownloadError('network', `Network error: ${describeError(err)}`, { retryable: true, cause: err });
}

/** Kept free beyond the file itself so a download never fills the disk to the last byte. */
export const FREE_SPACE_MARGIN_BYTES = 64 * 1024 * 1024;

/** Refuse (`disk_full`) when `remaining` bytes plus the margin do not fit on the volume holding `dir`. */
export async function ensureFreeSpace(dir: string, remaining: number, freeSpace: (dir: string) => Promise<number> = defaultFreeSpace): Promise<void> {
  if (!(remaining > 0)) return;
  let free: number;
  try {
    free = await freeSpace(dir);
  } catch {
    return; // statfs unsupported here: the write itself will report ENOSPC.
  }
  if (free < remaining + FREE_SPACE_MARGIN_BYTES) {
    throw new DownloadError(
      'disk_full',
      `Not enough free disk space: ${formatBytes(remaining)} still to download (plus ${formatBytes(FREE_SPACE_MARGIN_BYTES)} kept free) but only ${formatBytes(free)} is free for ${dir}`,
    );
  }
}

/** Free bytes for unprivileged writers on the volume holding `dir`. */
export async function defaultFreeSpace(dir: string): Promise<number> {
  const stats = await fsp.statfs(dir);
  return stats.bavail * stats.bsize;
}

/** Whether an error came from the local file system (it carries the path it failed on). */
function isLocalFileError(err: unknown): boolean {
  const candidate = err as { path?: unknown; syscall?: unknown } | null;
  return typeof candidate?.path === 'string' && typeof candidate.syscall === 'string';
}

/**
 * `connect ECONNREFUSED 127.0.0.1:1`, `aborted (ECONNRESET)`: the message, plus the error code
 * when the message does not already say it, plus a wrapped cause's code and message.
 */
function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as { code?: unknown }).code;
  const message = typeof code === 'string' && !err.message.includes(code) ? `${err.message} (${code})` : err.message;
  const cause = err.cause as { code?: unknown; message?: unknown } | undefined;
  const causeText = cause ? [cause.code, cause.message].filter((part) => typeof part === 'string').join(' ') : '';
  return causeText ? `${message} (${causeText})` : message;
}

/** `1.50 GB`, `12.0 MB`, `3 KB`. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(2)} GB`;
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${Math.max(0, Math.round(bytes / 1024))} KB`;
}

/**
 * Plumbing for the downloader: failure classification, free space, and turning
 * low-level errors into readable text.
 */
import { DownloadError } from './download-errors.js';
import { errnoCode } from '../fs-durable.js';
import { noSpaceMessage, spaceShortfall, type FreeBytes } from '../free-space.js';

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

/**
 * The free-space guard (`free-space.ts`) as a download's failure: `disk_full` is the reason the
 * download stops with (its row and event), not an HTTP answer.
 */
export async function ensureDownloadSpace(dir: string, remaining: number, what: string, freeBytes?: FreeBytes): Promise<void> {
  const free = await spaceShortfall(dir, remaining, freeBytes);
  if (free !== null) throw new DownloadError('disk_full', noSpaceMessage(what, remaining, free));
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

/**
 * What one `downloadFile` call takes and gives: the request (URL, files, expected hash), the
 * knobs (stall timeout, retries, backoff; tests shorten them), progress and the result. Also the
 * shape the download worker thread passes across.
 */

export interface DownloadRequest {
  url: string;
  /** Auth headers for the ORIGIN host only; never sent to a host the origin redirects to. */
  headers?: Record<string, string>;
  partFile: string;
  finalFile: string;
  expectedSha256?: string | null;
  /** Size hint (free-space check, progress total before the server says); not enforced. */
  expectedBytes?: number | null;
  /** Which kind of source this is, so auth failures name the right setting. */
  source?: 'modelhub' | 'repohost';
  /** The setting holding the token (defaults by source: MODELHUB_API_KEY / HUB_TOKEN). */
  tokenName?: string;
}

export interface DownloadProgress {
  /** Bytes in the part file, including a resumed head. */
  bytesDownloaded: number;
  bytesTotal: number | null;
  /** Rolling average bytes/s over ~5 s of this call's network bytes. */
  speed: number;
  /** Set while waiting to try again after a transient failure: the attempt coming, the most there will be, and why the last one failed. */
  retry?: { attempt: number; of: number; reason: string };
}

export interface DownloadOptions {
  signal?: AbortSignal;
  onProgress?: (progress: DownloadProgress) => void;
  /** No byte for this long counts as a (retryable) error. Default 60 000. */
  stallTimeoutMs?: number;
  /** Retries after the first attempt, counted since bytes last flowed. Default 5. */
  maxRetries?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Free bytes on the volume holding `dir` (default: `fs.statfs`). */
  freeSpace?: (dir: string) => Promise<number | null>;
}

export interface DownloadResult {
  sha256: string;
  bytes: number;
}

export const DEFAULT_STALL_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RETRIES = 5;

/**
 * The one interface the rest of Studio sees of the download queue (`Downloads`), and the shapes
 * that cross it. The queue knows files by name and kind; whoever owns the files (the catalogs)
 * says where each one lands when it is queued and where it comes from when it starts.
 */
import type { DownloadKind } from './download.store.js';
import type { DownloadStatus, DownloadStatusEntry } from '../contracts/downloads.contract.js';

export type { DownloadKind } from './download.store.js';
export type { DownloadStatus } from '../contracts/downloads.contract.js';

/** The state the queue reports for a file it knows (finished rows are left out). */
export type QueueState = 'queued' | 'downloading' | 'error';

/** A file to queue: its name (the queue's key), its owner's kind and where it lands. */
export interface DownloadJob {
  file: string;
  kind: DownloadKind;
  /** Absolute final path; the part file sits beside it. */
  finalFile: string;
  /** Expected size in bytes (free-space check, progress before the server says), or null. */
  estimatedBytes: number | null;
}

/** Everything a queued file needs when it starts, looked up again then (tokens change at runtime). */
export interface DownloadTarget {
  url: string;
  /** Auth headers for the origin host only. */
  headers: Record<string, string>;
  source: 'modelhub' | 'repohost';
  /** The setting holding the token, named in auth errors. */
  tokenName: string;
  finalFile: string;
  expectedSha256: string | null;
  estimatedBytes: number | null;
}

/**
 * Looks a queued file up when it starts. Throws (with a message for the user) when the owner no
 * longer knows the file or cannot say where it comes from; the row then fails as `not_found`.
 */
export type DownloadResolver = (file: string, kind: DownloadKind) => DownloadTarget;

/** Where queue lifecycle lines go (the catalog's activity log). */
export interface ActivitySink {
  info(message: string): void;
  ok(message: string): void;
  error(message: string): void;
}

/** The download queue as its owners use it (implemented by `DownloadManager`). */
export interface Downloads {
  /** Queue a file; `created` is false when it was already queued or downloading. */
  enqueue(job: DownloadJob): { created: boolean; status: DownloadStatus };
  /** Stop a queued or running download and forget it; true when there was one. */
  cancel(file: string): Promise<boolean>;
  /** Forget a finished or failed row (its file was deleted). */
  forget(file: string): void;
  /** Remove the partial download beside `finalFile` (part + sidecar); true when a part existed. */
  discardPart(finalFile: string): Promise<boolean>;
  /** Queue state per known file (finished ones left out). */
  queueStates(): Map<string, QueueState>;
  /** Every known download as the status stream shows it, keyed by file name. */
  statusEntries(): Record<string, DownloadStatusEntry>;
  /** Sum of the running downloads' speeds (bytes/s). */
  globalSpeed(): number;
  /** The `max_concurrent` setting in force. */
  maxConcurrent(): number;
  /** Clamp to 1–10, store and apply; returns the value in force. */
  setMaxConcurrent(value: number): number;
}

/**
 * The download status stream's entries (`GET /api/admin/downloads/status`, spec "Download status entry").
 */
import { z } from 'zod';

export type DownloadStatus = 'queued' | 'downloading' | 'done' | 'error';

/** One entry of the status stream (spec "Download status entry"). */
export interface DownloadStatusEntry {
  status: DownloadStatus;
  bytes_downloaded: number;
  bytes_total: number;
  /** Bytes per second, rolling average over a few seconds. */
  speed: number;
  /** 0–100, one decimal. */
  percent: number;
  error?: string;
  /** Beyond the spec: while a transient failure is retried, which attempt of how many and why the last one failed (the UI says "retrying 2 of 5 · <reason>"). */
  retry?: { attempt: number; of: number; reason: string };
}

/** The download-stream statuses (spec "Catalog model status"). */

// Any finite number is accepted and clamped (spec: "clamped to 1-10"); a non-number is a 400.
export const settingsPutBody = z.object({ max_concurrent: z.number().finite().optional() });

/** One message of the download status stream (SSE). */
export interface DownloadStream {
  downloads: Record<string, DownloadStatusEntry>;
  /** Epoch seconds. */
  timestamp: number;
}

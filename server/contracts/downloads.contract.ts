/**
 * The download status stream's entries (`GET /api/admin/downloads/status`, spec "Download status entry").
 */

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
  /** Beyond the spec: while a transient failure is retried, which attempt of how many (the UI says "retrying 2 of 5"). */
  retry?: { attempt: number; of: number };
}

/** The download-stream statuses (spec "Catalog model status"). */

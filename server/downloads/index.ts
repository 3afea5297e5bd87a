/**
 * What the rest of Studio may import from `downloads/`: the `Downloads` facade and its shapes,
 * and the module factory. Everything else in the folder
 * is the queue's and the transport's own business.
 */
export type { ActivitySink, DownloadJob, DownloadKind, DownloadResolver, Downloads, DownloadStatus, DownloadTarget, QueueState } from './downloads.types.js';
export type { DownloadStatusEntry } from '../contracts/downloads.contract.js';
export { createDownloadsModule, type DownloadsModule, type DownloadsModuleDeps } from './downloads.module.js';
export type { ThreadDownloadOptions } from './download-thread.js';
export type { StatusStreams } from './status-stream.js';
export { partFileFor } from './download-manager.service.js';

/**
 * Wiring of the download queue for whoever owns the files (the catalog module builds it, handing
 * over how to look a queued file up): the `Downloads` facade, the status stream and the
 * `max_concurrent` settings routes, started after the owner's lists are loaded.
 */
import type express from 'express';
import type { Db } from '../db/database.js';
import type { Logger } from '../logging.js';
import { SettingsStore } from '../db/settings.store.js';
import { DownloadManager, type DownloadEvents } from './download-manager.service.js';
import type { ThreadDownloadOptions } from './download-thread.js';
import { DownloadStore } from './download.store.js';
import { downloadsRoutes } from './downloads.routes.js';
import type { ActivitySink, DownloadResolver, Downloads } from './downloads.types.js';
import { StatusStreams } from './status-stream.js';

export interface DownloadsModuleDeps {
  db: Db;
  logger: Logger;
  /** Looks a queued file up when it starts (URL, token, final path, hash). */
  resolve: DownloadResolver;
  activity: ActivitySink;
  /** A file appeared on disk. */
  onFilesChanged?: () => void;
  /** Passed to every file download (tests shorten backoff and stall timeouts). */
  downloadOptions?: ThreadDownloadOptions;
  /** The event log downloads write to. */
  events?: DownloadEvents;
}

/** The built download capability. */
export interface DownloadsModule {
  downloads: Downloads;
  /** Open status streams (SSE clients). */
  streams: StatusStreams;
  routers: express.Router[];
  /** Resume the queue left by the last run. */
  start(): void;
  /** End the status streams and abort running downloads (parts and rows stay for the next boot). */
  stop(): Promise<void>;
}

/** Build the download queue; see the file comment. */
export function createDownloadsModule(deps: DownloadsModuleDeps): DownloadsModule {
  const manager = new DownloadManager({
    store: new DownloadStore(deps.db),
    settings: new SettingsStore(deps.db),
    resolve: deps.resolve,
    activity: deps.activity,
    logger: deps.logger,
    onFilesChanged: deps.onFilesChanged,
    downloadOptions: deps.downloadOptions,
    events: deps.events,
  });
  const streams = new StatusStreams(() => manager.statusEntries());
  return {
    downloads: manager,
    streams,
    routers: [downloadsRoutes(streams, manager)],
    start: () => manager.start(),
    async stop() {
      streams.closeAll();
      await manager.stop();
    },
  };
}

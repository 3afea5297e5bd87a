/**
 * Wiring of the download queue for whoever owns the files (the catalog module builds it, handing
 * over how to look a queued file up): the `Downloads` facade, the status stream and the
 * `max_concurrent` settings routes, started after the owner's lists are loaded.
 */
import type express from 'express';
import type { Db } from '../db/database.js';
import { SettingsStore } from '../db/settings.store.js';
import { DownloadManager, type DownloadManagerOptions } from './download-manager.service.js';
import { DownloadStore } from './download.store.js';
import { downloadsRoutes } from './downloads.routes.js';
import type { Downloads } from './downloads.types.js';
import { StatusStreams } from './status-stream.js';

/** What the manager takes, but the database instead of its stores. */
export type DownloadsModuleDeps = Omit<DownloadManagerOptions, 'store' | 'settings'> & { db: Db };

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
  const { db, ...options } = deps;
  const manager = new DownloadManager({ ...options, store: new DownloadStore(db), settings: new SettingsStore(db) });
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

/**
 * Wiring of the catalog capability (catalogs, metadata, and the download queue it feeds) behind
 * one factory, so the composition root only constructs it, mounts its routers and starts/stops
 * it. The queue itself lives in `downloads/`; the catalogs reach it through `Downloads` only.
 */
import type express from 'express';
import path from 'node:path';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { EventBus } from '../events/event-bus.js';
import type { Uploads } from '../http/uploads.js';
import { createDownloadsModule, type Downloads, type StatusStreams, type ThreadDownloadOptions } from '../downloads/index.js';
import type { Logger } from '../logging.js';
import type { ModelhubClient } from '../modelhub-client/modelhub.client.js';
import { RepohostClient } from '../repohost/repohost.client.js';
import { ActivityLog } from './activity-log.js';
import { CatalogActions } from './catalog-actions.service.js';
import { catalogDownloadResolver } from './catalog-downloads.js';
import { catalogFileRoutes } from './catalog-files.routes.js';
import { CatalogQueries } from './catalog-query.service.js';
import { catalogRoutes } from './catalog.routes.js';
import { CATALOG_FILE_NAMES, catalogSchemaFor } from '../contracts/catalog.contract.js';
import { CatalogStore } from './catalog.store.js';
import type { CatalogSet } from './catalog-set.js';
import { DiskUsage } from './disk-usage.js';
import { MetadataService } from './metadata.service.js';

/** The tokens in force (they are editable at runtime, so read per use). */
export interface SourceTokens {
  modelhubApiKey: string | null;
  hubToken: string | null;
}

export interface CatalogModuleDeps {
  config: Readonly<Config>;
  db: Db;
  events: EventBus;
  logger: Logger;
  /** The stores the composition root already loads on boot. */
  catalogs: { models: CatalogStore; loras: CatalogStore };
  /** Multipart uploads (catalog import). */
  uploads: Uploads;
  /** Runs before an LLM model file is deleted. */
  beforeLlmDelete?: (file: string) => Promise<void>;
  /** Defaults to the config's tokens. */
  tokens?: () => SourceTokens;
  /** The one model hub client (the composition root builds it; the model hub capability shares it). */
  modelhub: ModelhubClient;
  /** Passed to every file download (tests shorten backoff and stall timeouts). */
  downloadOptions?: ThreadDownloadOptions;
}

/** The built capability. */
export interface CatalogModule {
  routers: express.Router[];
  catalogs: CatalogSet;
  downloads: Downloads;
  metadata: MetadataService;
  disk: DiskUsage;
  activity: ActivityLog;
  /** Open status streams (SSE clients). */
  streams: StatusStreams;
  /** Load the LLM catalog and resume the download queue (after the other catalogs loaded). */
  start(): Promise<void>;
  /** End status streams, abort metadata lookups and running downloads (their parts stay). */
  stop(): Promise<void>;
}

/** Build the catalog capability. */
export function createCatalogModule(deps: CatalogModuleDeps): CatalogModule {
  const { config, logger } = deps;
  const tokens = deps.tokens ?? (() => ({ modelhubApiKey: config.tokens.modelhubApiKey, hubToken: config.tokens.hubToken }));
  const catalogs: CatalogSet = {
    ...deps.catalogs,
    llm: new CatalogStore({ file: path.join(config.paths.catalogs, CATALOG_FILE_NAMES.llm), schema: catalogSchemaFor('llm') }),
  };
  const dirs = { models: config.paths.models, llmModels: config.paths.llmModels };
  const activity = new ActivityLog();
  const disk = new DiskUsage({ modelsDir: config.paths.models });
  const queue = createDownloadsModule({
    db: deps.db,
    logger,
    resolve: catalogDownloadResolver({
      catalogs,
      dirs,
      sources: () => {
        const current = tokens();
        return {
          modelhubBaseUrl: config.urls.modelhub,
          repohostBaseUrl: config.urls.repohost,
          modelhubApiKey: current.modelhubApiKey,
          hubToken: current.hubToken,
        };
      },
    }),
    activity,
    onFilesChanged: () => disk.invalidate(),
    downloadOptions: deps.downloadOptions,
  });
  const downloads = queue.downloads;
  const metadata = new MetadataService({
    catalogs,
    modelhub: deps.modelhub,
    repohost: new RepohostClient({ baseUrl: config.urls.repohost, token: () => tokens().hubToken }),
    events: deps.events,
    logger,
  });
  const queries = new CatalogQueries({ catalogs, dirs, downloads, metadata, disk });
  const actions = new CatalogActions({ catalogs, dirs, downloads, events: deps.events, activity, disk, workflowsDir: config.paths.workflows, beforeLlmDelete: deps.beforeLlmDelete });

  return {
    routers: [catalogRoutes({ queries, actions, metadata, activity, uploads: deps.uploads }), catalogFileRoutes({ queries, actions }), ...queue.routers],
    catalogs,
    downloads,
    metadata,
    disk,
    activity,
    streams: queue.streams,
    async start() {
      await catalogs.llm.load().catch((err: unknown) => logger.error('catalog llm could not be loaded', err));
      queue.start();
    },
    async stop() {
      await Promise.all([metadata.stop(), queue.stop()]);
    },
  };
}

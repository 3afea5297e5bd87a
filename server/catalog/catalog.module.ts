/**
 * Wiring of the catalog capability (catalogs, metadata, and the download queue it feeds) behind
 * one factory, so the composition root only constructs it, mounts its routers and starts/stops
 * it. The queue itself lives in `downloads/`; the catalogs reach it through `Downloads` only.
 */
import path from 'node:path';
import { SHIPPED_ROOT, type Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { EventBus } from '../events/event-bus.js';
import type { Uploads } from '../http/uploads.js';
import { createDownloadsModule, type Downloads, type DownloadTarget, type StatusStreams } from '../downloads/index.js';
import type { Logger } from '../logging.js';
import type { StudioModule } from '../module.js';
import type { ModelhubClient } from '../modelhub-client/modelhub.client.js';
import { RepohostClient } from '../repohost/repohost.client.js';
import { ActivityLog } from './activity-log.js';
import { CatalogActions } from './catalog-actions.service.js';
import { catalogDownloadResolver } from './catalog-downloads.js';
import { CatalogQueries } from './catalog-query.service.js';
import { catalogRoutes } from './catalog.routes.js';
import { CATALOG_FILE_NAMES, catalogSchemaFor } from '../contracts/catalog.contract.js';
import { CatalogStore, seedCatalogs } from './catalog.store.js';
import { diskPresence, isShortOfCatalog, presenceSummary } from './model-status.js';
import { findBySha256, findEntry, type CatalogSet } from './catalog-set.js';
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
  /** Multipart uploads (catalog import). */
  uploads: Uploads;
  /** Runs before an LLM model file is deleted. */
  beforeLlmDelete?: (file: string) => Promise<void>;
  tokens: () => SourceTokens;
  /** The one model hub client (the composition root builds it; the model hub capability shares it). */
  modelhub: ModelhubClient;
  /** Files another capability queues through the same download queue (the LLM runtimes' archives), asked first. */
  otherDownloads: (file: string) => DownloadTarget | null;
}

export interface CatalogModule extends StudioModule {
  catalogs: CatalogSet;
  /** The `dest` folder the model and LoRA catalogs give a model file. */
  destOf(file: string): string | undefined;
  /** True when `bytes` is well short of the size the catalogs give `file` (workflow readiness: a cut-off file is not the model). */
  isShortFile(file: string, bytes: number): boolean;
  /** The model or LoRA catalog file whose `sha256` is this one (any case), else undefined. */
  fileBySha256(sha256: string): string | undefined;
  /** A model or LoRA catalog entry's SHA-256 (lowercase; null when it records none), or undefined when the file is not catalogued. */
  sha256Of(file: string): string | null | undefined;
  /** Queue a model or LoRA catalog file (as `POST /api/admin/models/download/{filename}`), verified by its SHA-256 if it has one. */
  download(file: string): Promise<{ status: string; file: string }>;
  /** How many catalogued models there are and how many are on disk (system status). */
  modelsPresence(): { count: number; present: number };
  /** Read every catalog file again (an update or sync replaced them). */
  reload(): Promise<void>;
  downloads: Downloads;
  activity: ActivityLog;
  /** Open status streams (SSE clients). */
  streams: StatusStreams;
  /** Seed the shipped catalogs on first boot (each store reads its file on first use). */
  prepare(): Promise<void>;
  /** Resume the download queue. */
  start(): void;
  /** End status streams, abort metadata lookups and running downloads (their parts stay). */
  stop(): Promise<void>;
}

export function createCatalogModule(deps: CatalogModuleDeps): CatalogModule {
  const { config, logger } = deps;
  const { tokens } = deps;
  const store = (kind: 'models' | 'loras' | 'llm') =>
    new CatalogStore({
      file: path.join(config.paths.catalogs, CATALOG_FILE_NAMES[kind]),
      schema: catalogSchemaFor(kind),
      onFirstReadError: (err) => logger.error(`catalog ${kind} could not be loaded`, err),
    });
  const catalogs: CatalogSet = { models: store('models'), loras: store('loras'), llm: store('llm') };
  const dirs = { models: config.paths.models, llmModels: config.paths.llmModels };
  const activity = new ActivityLog();
  const disk = new DiskUsage({ modelsDir: config.paths.models });
  const fromCatalogs = catalogDownloadResolver({
    catalogs,
    dirs,
    sources: () => ({ modelhubBaseUrl: config.urls.modelhub, repohostBaseUrl: config.urls.repohost, ...tokens() }),
  });
  const queue = createDownloadsModule({
    db: deps.db,
    logger,
    events: deps.events,
    // Another capability's own files first (the LLM runtimes' archives), then the catalogs.
    resolve: (file, kind) => deps.otherDownloads(file) ?? fromCatalogs(file, kind),
    activity,
    onFilesChanged: () => disk.invalidate(),
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
    name: 'catalog',
    routers: [catalogRoutes({ queries, actions, metadata, activity, uploads: deps.uploads }), ...queue.routers],
    catalogs,
    downloads,
    activity,
    streams: queue.streams,
    destOf: (file) => findEntry(catalogs, file)?.entry.dest,
    isShortFile(file, bytes) {
      const hit = findEntry(catalogs, file);
      return hit ? isShortOfCatalog(bytes, hit.entry) : false;
    },
    fileBySha256: (sha256) => findBySha256(catalogs, sha256)?.file,
    sha256Of(file) {
      const hit = findEntry(catalogs, file);
      return hit ? (hit.entry.sha256?.toLowerCase() ?? null) : undefined;
    },
    download: (file) => actions.download(file),
    modelsPresence() {
      if (!catalogs.models.isLoaded()) return { count: 0, present: 0 };
      const { total, present } = presenceSummary(catalogs.models.get(), 'models', diskPresence(dirs));
      return { count: total, present };
    },
    reload: async () => void (await Promise.all(Object.values(catalogs).map((store) => store.load()))),
    async prepare() {
      // The stores read their files on first use (catalog.store.ts says why).
      await seedCatalogs(path.join(SHIPPED_ROOT, 'resources', 'catalogs'), config.paths.catalogs);
    },
    start() {
      queue.start();
    },
    async stop() {
      await Promise.all([metadata.stop(), queue.stop()]);
    },
  };
}

/**
 * The disk capability as `studio.ts` builds it: usage per volume and kind, duplicated model
 * files (hashes stored in SQLite), unused files, and the low-space warning. It reads the
 * catalogs (which entries name a file) and the workflows (which models they need), never writes
 * them.
 */
import os from 'node:os';
import path from 'node:path';
import { catalogOrEmpty, type CatalogSet } from '../catalog/catalog-set.js';
import type { Config } from '../config.js';
import { catalogEntries, type CatalogKind } from '../contracts/catalog.contract.js';
import type { Db } from '../db/database.js';
import type { Downloads } from '../downloads/index.js';
import type { EventBus } from '../events/event-bus.js';
import type { StudioModule } from '../module.js';
import { loadWorkflows } from '../workflows/workflow.store.js';
import type { DiskFolders } from './disk-folders.js';
import { DiskUsageService } from './disk-usage.service.js';
import { diskRoutes } from './disk.routes.js';
import { DuplicatesService, type ModelUsage } from './duplicates.service.js';
import { FileHashStore } from './file-hash.store.js';
import { JobRefsStore } from './job-refs.store.js';
import { LowSpaceWatch } from './low-space.js';
import { OrphansService } from './orphans.service.js';
import { RetentionService, type RetentionDeps } from './retention.service.js';

export interface DiskModuleDeps {
  config: Readonly<Config>;
  db: Db;
  events: EventBus;
  catalogs: CatalogSet;
  downloads: Pick<Downloads, 'queueStates'>;
  /** Retention: jobs a preset was made from (kept), and the jobs capability's delete. */
  presetJobs: RetentionDeps['presetJobs'];
  deleteJobs: RetentionDeps['deleteJobs'];
}

export function createDiskModule(deps: DiskModuleDeps): StudioModule {
  const { paths, engine } = deps.config;
  const home = os.homedir();
  const folders: DiskFolders = {
    root: paths.root,
    models: paths.models,
    llmModels: paths.llmModels,
    outputs: paths.assetsOutput,
    inputs: paths.assetsInput,
    gallery: paths.gallery,
    engine: [paths.engine, ...(engine.dir ? [engine.dir] : [])],
    caches: [path.join(home, '.cache', 'pip'), path.join(home, '.cache', 'uv')],
    logs: [paths.logs, paths.eventsFile],
    database: [paths.db],
  };
  const hashes = new FileHashStore(deps.db);
  const usage = new DiskUsageService({ folders, warnFreeBytes: deps.config.disk.warnFreeBytes });
  const modelUsage = () => readModelUsage(deps.catalogs, paths.workflows, folders);
  const duplicates = new DuplicatesService({ folders, hashes, events: deps.events, usage: modelUsage });
  const orphans = new OrphansService({
    folders,
    events: deps.events,
    hashes,
    jobs: new JobRefsStore(deps.db),
    queuedDownloads: () => new Set([...deps.downloads.queueStates()].filter(([, state]) => state !== 'error').map(([file]) => file)),
    usage: modelUsage,
  });
  const lowSpace = new LowSpaceWatch({ events: deps.events, thresholdBytes: deps.config.disk.warnFreeBytes, lowestFree: () => usage.lowestFree() });
  const retention = new RetentionService({ db: deps.db, events: deps.events, outputsDir: paths.assetsOutput, presetJobs: deps.presetJobs, deleteJobs: deps.deleteJobs });
  return {
    name: 'disk',
    routers: [diskRoutes({ usage, duplicates, orphans, retention })],
    start: () => {
      lowSpace.start();
      retention.start();
    },
    stop: () => {
      lowSpace.stop();
      retention.stop();
    },
  };
}

/** Which catalog entries name each model path, and which workflows need each file name. */
async function readModelUsage(catalogs: CatalogSet, workflowsDir: string, folders: DiskFolders): Promise<ModelUsage & { catalogNames: Set<string> }> {
  const catalog = new Map<string, string[]>();
  const catalogNames = new Set<string>();
  for (const kind of ['models', 'loras', 'llm'] as CatalogKind[]) {
    for (const { entry } of catalogEntries(catalogOrEmpty(catalogs, kind))) {
      const rel = kind === 'llm' ? path.join(path.relative(folders.root, folders.llmModels), entry.file) : path.join(path.relative(folders.root, folders.models), entry.dest, entry.file);
      const key = rel.split(path.sep).join('/');
      catalog.set(key, [...(catalog.get(key) ?? []), `${kind}/${entry.name}`]);
      catalogNames.add(entry.file);
    }
  }
  const workflows = new Map<string, string[]>();
  for (const workflow of await loadWorkflows(workflowsDir)) {
    for (const file of new Set(workflow.manifest?.required_models ?? [])) workflows.set(file, [...(workflows.get(file) ?? []), workflow.id]);
  }
  return { catalog, catalogNames, workflows };
}

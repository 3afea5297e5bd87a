/**
 * The provenance capability as `studio.ts` builds it (issue 46): metadata in every output at
 * collection, a lock recorded for every job at submission, and Run again. It is built before the
 * jobs module, which calls its `hooks`; it reaches the jobs (who may see a job, retry, execute)
 * through the functions it is given, asked per request.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import { SettingsStore } from '../db/settings.store.js';
import type { Uploads } from '../http/uploads.js';
import type { Logger } from '../logging.js';
import type { StudioModule } from '../module.js';
import { customNodesDirOf } from '../engine/engine-launch.js';
import type { ApiGraph } from '../engine/engine-graph.js';
import type { JobRecord } from '../contracts/jobs.contract.js';
import type { JobLock } from '../contracts/provenance.contract.js';
import { Environment } from './environment.js';
import { LockService } from './lock.service.js';
import { LockStore } from './lock.store.js';
import { OutputStamper } from './output-stamp.js';
import { ProvenanceService, type ProvenanceServiceDeps } from './provenance.service.js';
import { ProvenanceSettingsStore } from './provenance-settings.js';
import { provenanceRoutes } from './provenance.routes.js';

export interface ProvenanceModuleDeps {
  config: Readonly<Config>;
  db: Db;
  logger: Logger;
  uploads: Uploads;
  /** The engine's own version (`/system_stats`), null when it does not answer. */
  engineVersion(): Promise<string | null>;
  /** An installed workflow's version (throws when it is not installed). */
  workflowVersion(id: string): Promise<number | string | null>;
  /** The disk page's hash store: a file's SHA-256, kept while its size and mtime are unchanged. */
  hashes: { hashOf(file: { path: string; size: number; mtimeMs: number }): Promise<{ sha256: string }> };
  /** The catalog's SHA-256 of a model file (null: it records none; undefined: not catalogued). */
  catalogSha256(file: string): string | null | undefined;
  /** The model hub's version id a catalog records for a file. */
  hubVersionId(file: string): number | string | null;
  /** The jobs, asked per request (they are built after this module). */
  jobs: () => Omit<ProvenanceServiceDeps, 'locks'>;
}

export interface ProvenanceModule extends StudioModule {
  /** What the jobs module calls. */
  hooks: {
    stamp(job: JobRecord, dir: string, graph: ApiGraph): Promise<number>;
    recordLock(job: JobRecord, graph: ApiGraph): void;
    lockOf(promptId: string): JobLock | null;
  };
}

export function createProvenanceModule(deps: ProvenanceModuleDeps): ProvenanceModule {
  const { config } = deps;
  const environment = new Environment({
    engineMode: config.engine.mode,
    engineDir: config.engine.dir,
    enginePython: config.engine.python,
    customNodesDir: customNodesDirOf(config),
    modelsDir: config.paths.models,
    env: config.childEnv,
    scratchDir: path.join(config.paths.root, 'tmp'),
    engineVersion: deps.engineVersion,
    hashFile: async (file) => {
      const stat = await fsp.stat(file);
      return (await deps.hashes.hashOf({ path: file, size: stat.size, mtimeMs: stat.mtimeMs })).sha256;
    },
  });
  const settings = new ProvenanceSettingsStore(new SettingsStore(deps.db));
  const locks = new LockService({ store: new LockStore(deps.db), environment, studioVersion: config.version, workflowVersion: deps.workflowVersion, catalogSha256: deps.catalogSha256, logger: deps.logger });
  const stamper = new OutputStamper({
    enabled: () => settings.metadataOn(),
    privatePrompts: (id) => settings.isPrivate(id),
    modelFacts: async (ref) => ({ sha256: (await environment.model(ref))?.sha256 ?? null, hubVersionId: deps.hubVersionId(ref.file) }),
    video: { env: config.childEnv },
    logger: deps.logger,
  });
  const service = new ProvenanceService({
    locks,
    visible: (id, actor) => deps.jobs().visible(id, actor),
    retry: (id, submitter, actor) => deps.jobs().retry(id, submitter, actor),
    execute: (id, params, image, origin) => deps.jobs().execute(id, params, image, origin),
  });
  return {
    name: 'provenance',
    routers: [provenanceRoutes(service, settings, deps.uploads)],
    hooks: {
      async stamp(job, dir, graph) {
        const lock = await locks.settled(job.prompt_id);
        return stamper.stampFolder(dir, job.workflow_id, graph, lock);
      },
      recordLock: (job, graph) => locks.record(job, graph),
      lockOf: (id) => locks.get(id),
    },
  };
}

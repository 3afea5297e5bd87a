/**
 * The workflows capability as `studio.ts` builds it: the installed workflows (seeded from the
 * shipped ones on first boot), their readiness against the engine and the catalogs, the import of
 * any engine workflow, and their routes. The engine's node list is the local pool engine's (read again after each engine start).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { SHIPPED_ROOT, type Config } from '../config.js';
import type { MapPackage } from '../contracts/nodes.contract.js';
import type { ObjectInfo } from '../engine/engine-graph.js';
import type { EngineModule } from '../engine/engine.module.js';
import type { Uploads } from '../http/uploads.js';
import type { StudioModule } from '../module.js';
import { NodeMapStore } from './import/node-map.store.js';
import type { KnownSources } from './import/node-sources.js';
import { workflowImportRoutes } from './import/workflow-import.routes.js';
import { WorkflowFormService } from './import/workflow-form.service.js';
import { WorkflowImportService } from './import/workflow-import.service.js';
import { seedWorkflows } from './workflow-seed.store.js';
import { WorkflowService, type WorkflowServiceDeps } from './workflow.service.js';
import { workflowsRoutes, type RunChecks } from './workflows.routes.js';

export interface WorkflowsModuleDeps extends Pick<WorkflowServiceDeps, 'destOf' | 'isShortFile' | 'events' | 'logger'> {
  config: Readonly<Config>;
  engine: Pick<EngineModule, 'client' | 'pool' | 'local'>;
  /** The catalog file whose recorded SHA-256 is this one (imports match model files by content). */
  fileBySha256: (sha256: string) => string | undefined;
  uploads: Uploads;
  /** A person's allow-lists (the jobs capability's run limits, built later): `/build` shows no graph a person may not run. */
  runChecks?: (userId: string) => RunChecks;
}

export interface WorkflowsModule extends StudioModule {
  service: WorkflowService;
  /** The install URLs the node maps know by package name (the node install route checks URLs against them). */
  knownNodeSources: () => Promise<KnownSources>;
  /** The packages the node maps know (the Nodes page searches them). */
  nodeMapPackages: () => Promise<MapPackage[]>;
}

export function createWorkflowsModule(deps: WorkflowsModuleDeps): WorkflowsModule {
  const { config, logger } = deps;
  const nodeMap = new NodeMapStore({
    shippedFile: path.join(SHIPPED_ROOT, 'resources', 'node-packages.json'),
    cacheFile: path.join(config.paths.root, 'cache', 'node-map.json'),
    url: config.urls.nodeMap,
  });
  const service = new WorkflowService({
    ...deps,
    dir: config.paths.workflows,
    modelsDir: config.paths.models,
    modelsFromEngine: config.engine.mode === 'external',
    engine: deps.engine.client,
    nodes: deps.engine.local,
    otherEngines: async () => {
      const others = deps.engine.pool.list().filter((e) => e.kind !== 'local' && e.status === 'online');
      return (await Promise.all(others.map((e) => e.objectInfo()))).filter((info) => info !== null);
    },
    knownNodeSources: () => nodeMap.knownSources(),
  });
  const importer = new WorkflowImportService({
    dir: config.paths.workflows,
    objectInfo: () => service.objectInfo(),
    coreNodes: async () => JSON.parse(await fs.readFile(path.join(SHIPPED_ROOT, 'resources', 'standin', 'object_info.comfyui-0.29.0.json'), 'utf8')) as ObjectInfo,
    nodeMap: (types) => nodeMap.mapFor(types),
    catalog: { destOf: deps.destOf, fileBySha256: deps.fileBySha256 },
    knownSources: () => nodeMap.knownSources(),
  });
  const forms = new WorkflowFormService({ dir: config.paths.workflows, importer, objectInfo: () => service.objectInfo() });
  return {
    name: 'workflows',
    routers: [workflowsRoutes(service, deps.uploads, deps.runChecks), workflowImportRoutes(importer, deps.uploads, nodeMap, forms)],
    service,
    knownNodeSources: () => nodeMap.knownSources(),
    nodeMapPackages: () => nodeMap.packages(),
    async prepare() {
      const seeded = await seedWorkflows(path.join(SHIPPED_ROOT, 'workflows'), config.paths.workflows);
      if (seeded.seeded) logger.info(`seeded ${seeded.copied.length} workflow(s) into ${config.paths.workflows}`);
    },
  };
}

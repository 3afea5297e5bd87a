/**
 * The node packages capability as `studio.ts` builds it: the engine's packages and the changes to
 * its `custom_nodes` and Python (the stand-in's folder lives in the data directory), each behind
 * a snapshot, logged to the catalog's activity log, checked by restarting the engine.
 */
import path from 'node:path';
import type { Config } from '../config.js';
import type { MapPackage } from '../contracts/nodes.contract.js';
import type { EventBus } from '../events/event-bus.js';
import type { StudioModule } from '../module.js';
import type { ObjectInfo } from '../engine/engine-graph.js';
import type { KnownSources } from '../workflows/import/node-sources.js';
import { customNodesDirOf } from '../engine/engine-launch.js';
import { EngineCheck } from './engine-check.js';
import { NodeChanges } from './node-change.js';
import { NodeEnvironment } from './node-environment.js';
import { NodeInstallService } from './node-install.service.js';
import { NodeListService, type WorkflowNeeds } from './node-list.service.js';
import { NodeManageService } from './node-manage.service.js';
import { NodeRecordStore } from './node-records.store.js';
import { NodeSnapshotStore } from './node-snapshots.store.js';
import { UnfinishedInstallStore } from './unfinished-installs.store.js';
import { nodesRoutes } from './nodes.routes.js';

export interface NodesModuleDeps {
  config: Readonly<Config>;
  events: EventBus;
  /** The engine's node schemas (the workflows capability caches them per engine start). */
  objectInfo: () => Promise<ObjectInfo>;
  /** Drop that cache (after a restart the engine's node set may differ). */
  invalidateObjectInfo: () => void;
  restartEngine: () => Promise<void>;
  /** The installed workflows as the workflows capability lists them (their `required_nodes` are read). */
  workflows: () => Promise<Record<string, unknown>[]>;
  /** The install URLs the node maps know by package name (an install from another URL must be confirmed). */
  knownNodeSources: () => Promise<KnownSources>;
  /** The packages the node maps know, for the search (the workflows capability keeps the maps). */
  nodeMapPackages: () => Promise<MapPackage[]>;
  /** The activity log installs write to (the catalog's). */
  log: (level: 'info' | 'ok' | 'error', message: string) => void;
}

export function createNodesModule(deps: NodesModuleDeps): StudioModule {
  const { engine, paths } = deps.config;
  const customNodesDir = customNodesDirOf(deps.config);
  const scratchDir = path.join(paths.root, 'tmp');
  const timeouts = deps.config.nodeInstall;
  const env = customNodesDir ? new NodeEnvironment({ customNodesDir, python: engine.python, env: deps.config.childEnv, scratchDir, timeouts, log: deps.log }) : null;
  const check = new EngineCheck({
    mode: engine.mode,
    restartEngine: deps.restartEngine,
    freshObjectInfo: () => {
      deps.invalidateObjectInfo();
      return deps.objectInfo();
    },
    logFile: path.join(paths.logs, 'engine.log'),
  });
  const snapshots = new NodeSnapshotStore(path.join(paths.engine, 'node-snapshots'));
  const changes = new NodeChanges({
    env,
    snapshots,
    records: new NodeRecordStore(path.join(paths.engine, 'node-packages.json')),
    unfinished: new UnfinishedInstallStore(path.join(paths.engine, 'node-installs-unfinished')),
    check,
    events: deps.events,
    scratchDir,
    timeouts,
    log: deps.log,
  });
  const list = new NodeListService({
    objectInfo: deps.objectInfo,
    env,
    check,
    workflows: async () => (await deps.workflows()).map(needsOf),
    git: { env: { ...deps.config.childEnv, GIT_TERMINAL_PROMPT: '0' }, timeoutMs: 30_000 },
  });
  return {
    name: 'nodes',
    routers: [
      nodesRoutes({
        list,
        installer: new NodeInstallService(changes, deps.knownNodeSources),
        manage: new NodeManageService(changes),
        snapshots,
        engineMode: engine.mode,
        restartEngine: deps.restartEngine,
        mapPackages: deps.nodeMapPackages,
      }),
    ],
  };
}

/** The node types a listed workflow needs (an entry without a list needs none). */
function needsOf(workflow: Record<string, unknown>): WorkflowNeeds {
  const required = workflow.required_nodes;
  return { id: String(workflow.id), required_nodes: Array.isArray(required) ? required.map(String) : [] };
}

/**
 * The node packages capability as `studio.ts` builds it: the engine's installed packages and
 * installs into its `custom_nodes` (the stand-in's lives in the data directory), logged to the
 * catalog's activity log, with an engine restart to load them.
 */
import path from 'node:path';
import type { Config } from '../config.js';
import type { EventBus } from '../events/event-bus.js';
import type { StudioModule } from '../module.js';
import type { ObjectInfo } from '../engine/engine-graph.js';
import { NodeInstallService, type NodeInstallDeps } from './node-install.service.js';
import { nodesRoutes } from './nodes.routes.js';

export interface NodesModuleDeps {
  config: Readonly<Config>;
  events: EventBus;
  /** The engine's node schemas (the workflows capability caches them per engine start). */
  objectInfo: () => Promise<ObjectInfo>;
  restartEngine: () => Promise<void>;
  /** The activity log installs write to (the catalog's). */
  log: NodeInstallDeps['log'];
}

export function createNodesModule(deps: NodesModuleDeps): StudioModule {
  const { engine, paths } = deps.config;
  const customNodesDir = engine.dir ? path.join(engine.dir, 'custom_nodes') : engine.mode === 'standin' ? path.join(paths.engine, 'custom_nodes') : null;
  const installer = new NodeInstallService({
    target: { customNodesDir, python: engine.python },
    env: deps.config.childEnv,
    timeouts: deps.config.nodeInstall,
    scratchDir: path.join(paths.root, 'tmp'),
    events: deps.events,
    log: deps.log,
  });
  return {
    name: 'nodes',
    routers: [nodesRoutes({ objectInfo: deps.objectInfo, installer, engineMode: engine.mode, restartEngine: deps.restartEngine })],
  };
}

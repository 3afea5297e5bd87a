/**
 * Node packages (spec "Nodes") and the engine restart an install asks for. Parse and delegate.
 */
import express from 'express';
import type { EngineMode } from '../config.js';
import { nodeInstallBody } from '../contracts/nodes.contract.js';
import { validate } from '../http/errors.js';
import { DomainError } from '../domain-error.js';
import { groupNodePackages } from '../workflows/node-packages.js';
import type { ObjectInfo } from '../engine/engine-graph.js';
import type { NodeInstallService } from './node-install.service.js';

export interface NodesRouteDeps {
  objectInfo: () => Promise<ObjectInfo>;
  installer: NodeInstallService;
  engineMode: EngineMode;
  restartEngine: () => Promise<void>;
}

/** Managed and stand-in engines are Studio's children; an external one is someone else's. */
function canRestart(mode: EngineMode): boolean {
  return mode !== 'external';
}

export function nodesRoutes(deps: NodesRouteDeps): express.Router {
  const router = express.Router();

  router.get('/api/admin/nodes', async (_req, res) => {
    let info: ObjectInfo;
    try {
      info = await deps.objectInfo();
    } catch (err) {
      throw new DomainError('unavailable', `The engine is unreachable, so its nodes cannot be listed: ${(err as Error).message}`);
    }
    const packages = groupNodePackages(info);
    res.json({ packages, total_nodes: packages.reduce((n, p) => n + p.node_count, 0), total_packages: packages.length });
  });

  router.post('/api/admin/nodes/install', async (req, res) => {
    const body = validate(nodeInstallBody, req.body ?? {}, { detail: 'url is required (an https:// git URL)' });
    const result = await deps.installer.install(body.url ?? body.repo_url);
    // Beyond the spec: say whether Studio can restart the engine to load the package.
    res.json({ ...result, engine_restart: canRestart(deps.engineMode) ? 'available' : 'external engine: restart it yourself' });
  });

  router.post('/api/admin/engine/restart', async (_req, res) => {
    if (!canRestart(deps.engineMode)) throw new DomainError('conflict', 'The engine is external: Studio did not start it and cannot restart it');
    await deps.restartEngine();
    res.json({ status: 'restarted', mode: deps.engineMode });
  });

  return router;
}

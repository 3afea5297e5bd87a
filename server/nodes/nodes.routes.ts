/**
 * Node packages (spec "Nodes"): the list, install with a preview, update, disable/enable,
 * uninstall, snapshots and their restore, and the engine restart an install may ask for.
 * Parse and delegate.
 */
import express from 'express';
import type { EngineMode } from '../config.js';
import { nodeInstallBody, nodeSearchQuery, nodeUpdateBody, type MapPackage } from '../contracts/nodes.contract.js';
import { DomainError } from '../domain-error.js';
import { validate } from '../http/errors.js';
import type { NodeInstallService } from './node-install.service.js';
import type { NodeListService } from './node-list.service.js';
import type { NodeManageService } from './node-manage.service.js';
import type { NodeSnapshotStore } from './node-snapshots.store.js';
import { searchNodeMap } from './node-search.js';

export interface NodesRouteDeps {
  list: NodeListService;
  installer: NodeInstallService;
  manage: NodeManageService;
  snapshots: NodeSnapshotStore;
  engineMode: EngineMode;
  restartEngine: () => Promise<void>;
  /** The packages the node maps know (shipped and cached). */
  mapPackages: () => Promise<MapPackage[]>;
}

/** Managed and stand-in engines are Studio's children; an external one is someone else's. */
function canRestart(mode: EngineMode): boolean {
  return mode !== 'external';
}

export function nodesRoutes(deps: NodesRouteDeps): express.Router {
  const router = express.Router();

  router.get('/api/admin/nodes', async (req, res) => {
    const rows = await deps.list.list(req.query.refresh_updates === '1' || req.query.refresh_updates === 'true');
    const loaded = rows.filter((p) => p.node_count > 0);
    res.json({ packages: rows, total_nodes: loaded.reduce((n, p) => n + p.node_count, 0), total_packages: loaded.length });
  });

  // Beyond the spec: find a package to install by its name or a node type it adds.
  router.get('/api/admin/nodes/search', async (req, res) => {
    const { q } = validate(nodeSearchQuery, req.query);
    res.json({ query: q, results: searchNodeMap(await deps.mapPackages(), q) });
  });

  router.post('/api/admin/nodes/install', async (req, res) => {
    const body = validate(nodeInstallBody, req.body ?? {}, { ownMessages: true, notObject: 'url is required (an https:// git URL)' });
    const result = await deps.installer.install({ url: body.url ?? body.repo_url, dryRun: body.dry_run, commit: body.commit, confirmSource: body.confirm_source });
    // Beyond the spec: say whether Studio can restart the engine to load the package.
    res.json({ ...result, engine_restart: canRestart(deps.engineMode) ? 'available' : 'external engine: restart it yourself' });
  });

  router.get('/api/admin/nodes/snapshots', async (_req, res) => {
    res.json({ snapshots: await deps.snapshots.list() });
  });

  router.post('/api/admin/nodes/snapshots/:id/restore', async (req, res) => {
    res.json(await deps.manage.restore(req.params.id));
  });

  router.post('/api/admin/nodes/:name/update', async (req, res) => {
    const body = validate(nodeUpdateBody, req.body ?? {});
    res.json(await deps.installer.update(req.params.name, { dryRun: body.dry_run, commit: body.commit }));
  });

  router.post('/api/admin/nodes/:name/disable', async (req, res) => {
    res.json(await deps.manage.setEnabled(req.params.name, false));
  });

  router.post('/api/admin/nodes/:name/enable', async (req, res) => {
    res.json(await deps.manage.setEnabled(req.params.name, true));
  });

  router.delete('/api/admin/nodes/:name', async (req, res) => {
    res.json(await deps.manage.uninstall(req.params.name));
  });

  router.post('/api/admin/engine/restart', async (_req, res) => {
    if (!canRestart(deps.engineMode)) throw new DomainError('conflict', 'The engine is external: Studio did not start it and cannot restart it');
    await deps.restartEngine();
    res.json({ status: 'restarted', mode: deps.engineMode });
  });

  return router;
}

/**
 * Catalog routes: the models and LoRA catalogs, compatible LoRAs, the model-hub map, catalog
 * removal and import, metadata fetch, the activity log and a workflow's install-models.
 */
import express from 'express';
import { DomainError } from '../domain-error.js';
import { readUploadText, type Uploads } from '../http/uploads.js';
import type { ActivityLog } from './activity-log.js';
import type { CatalogActions } from './catalog-actions.service.js';
import type { CatalogQueries } from './catalog-query.service.js';
import type { MetadataService } from './metadata.service.js';

export interface CatalogRouteDeps {
  queries: CatalogQueries;
  actions: CatalogActions;
  metadata: MetadataService;
  activity: ActivityLog;
  uploads: Uploads;
}

/** Catalog routes (see the file comment). */
export function catalogRoutes({ queries, actions, metadata, activity, uploads }: CatalogRouteDeps): express.Router {
  const router = express.Router();

  router.get('/api/admin/models', async (_req, res) => {
    res.json(await queries.catalog('models'));
  });

  router.get('/api/admin/loras', async (_req, res) => {
    res.json(await queries.catalog('loras'));
  });

  router.get('/api/admin/loras/compatible/:baseModel', async (req, res) => {
    res.json(await queries.compatible(String(req.params.baseModel)));
  });

  router.get('/api/admin/models/civitai-map', async (_req, res) => {
    res.json(await queries.modelhubMap());
  });

  router.delete('/api/admin/models/:filename/catalog', async (req, res) => {
    res.json(await actions.removeFromCatalog(String(req.params.filename)));
  });

  router.post('/api/admin/models/import', uploads.single('file', 'json'), async (req, res) => {
    if (!req.file) throw new DomainError('invalid', 'Upload a catalog file in the multipart field "file"');
    res.json(await actions.importCatalog(await readUploadText(req.file)));
  });

  router.post('/api/admin/models/fetch-metadata', (_req, res) => {
    res.json(metadata.fetchAll());
  });

  router.get('/api/admin/models/metadata-status', (_req, res) => {
    res.json(metadata.statusMap());
  });

  router.get('/api/admin/activity-log', (_req, res) => {
    res.json(activity.list());
  });

  router.post('/api/admin/activity-log/clear', (_req, res) => {
    activity.clear();
    res.json({ status: 'cleared' });
  });

  router.post('/api/admin/workflows/:workflowId/install-models', async (req, res) => {
    res.json(await actions.installModels(String(req.params.workflowId)));
  });

  return router;
}

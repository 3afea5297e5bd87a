/**
 * Catalog routes: the models and LoRA catalogs, compatible LoRAs, the model-hub map, catalog
 * removal and import, metadata fetch, the activity log and a workflow's install-models; the
 * files: queue one or a batch (models and LoRAs share these), file deletes, and the LLM catalog's
 * list, download and delete. The status stream is the download queue's own route
 * (`downloads/downloads.routes.ts`).
 */
import express from 'express';
import { catalogFilesBody } from '../contracts/catalog.contract.js';
import { DomainError } from '../domain-error.js';
import { validate } from '../http/errors.js';
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

  router.post('/api/admin/models/download-batch', async (req, res) => {
    const { filenames } = validate(catalogFilesBody, req.body ?? {});
    res.json(await actions.downloadBatch(filenames));
  });

  router.post('/api/admin/models/download/:filename', async (req, res) => {
    res.json(await actions.download(String(req.params.filename)));
  });

  router.delete('/api/admin/models/:filename', async (req, res) => {
    res.json(await actions.deleteModel(String(req.params.filename)));
  });

  router.get('/api/admin/llm/models', async (_req, res) => {
    res.json(await queries.llmCatalog());
  });

  router.post('/api/admin/llm/models/download/:filename', async (req, res) => {
    res.json(await actions.downloadLlm(String(req.params.filename)));
  });

  router.delete('/api/admin/llm/models/:filename', async (req, res) => {
    res.json(await actions.deleteLlm(String(req.params.filename)));
  });

  return router;
}

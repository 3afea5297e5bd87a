/**
 * The catalogs' file routes: queue one file or a batch (models and LoRAs share these), file
 * deletes, and the LLM catalog's list, download and delete. The status stream is the download
 * queue's own route (`downloads/downloads.routes.ts`).
 */
import express from 'express';
import { validate } from '../http/errors.js';
import type { CatalogActions } from './catalog-actions.service.js';
import type { CatalogQueries } from './catalog-query.service.js';
import { catalogFilesBody } from '../contracts/catalog.contract.js';

export interface CatalogFileRouteDeps {
  queries: CatalogQueries;
  actions: CatalogActions;
}

/** File (download, delete) and LLM catalog routes. */
export function catalogFileRoutes({ queries, actions }: CatalogFileRouteDeps): express.Router {
  const router = express.Router();

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

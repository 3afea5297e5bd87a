/**
 * `POST /api/admin/workflows/import` (multipart `file`, optional `id`, `name`, `category`),
 * `GET /api/admin/workflows/{id}/export` (the workflow folder as a ZIP an import restores), and
 * the node map imports use: `GET /api/admin/workflows/import/node-map` (its state) and
 * `POST …/node-map/refresh` (download it now); the form editor's `GET`/`PUT
 * /api/admin/workflows/{id}/form` and `POST /api/admin/workflows/{id}/reimport` (multipart
 * `file`, `apply=true` to write; a preview otherwise).
 */
import fs from 'node:fs/promises';
import express from 'express';
import { z } from 'zod';
import { writeDirectoryZip } from '../../assets/assets-zip.js';
import { contentDisposition } from '../../http/content-disposition.js';
import { validate } from '../../http/errors.js';
import { DomainError } from '../../domain-error.js';
import type { Uploads } from '../../http/uploads.js';
import { formSaveBody, reimportFields } from '../../contracts/workflows.contract.js';
import type { NodeMapStore } from './node-map.store.js';
import type { WorkflowFormService } from './workflow-form.service.js';
import type { WorkflowImportService } from './workflow-import.service.js';

const importFields = z.object({
  id: z.string().max(100).optional(),
  name: z.string().max(200).optional(),
  category: z.string().max(100).optional(),
});

export function workflowImportRoutes(importer: WorkflowImportService, uploads: Uploads, nodeMap: NodeMapStore, forms: WorkflowFormService): express.Router {
  const router = express.Router();

  router.get('/api/admin/workflows/:id/form', async (req, res) => {
    res.json(await forms.get(String(req.params.id)));
  });

  router.put('/api/admin/workflows/:id/form', async (req, res) => {
    res.json(await forms.save(String(req.params.id), validate(formSaveBody, req.body ?? {})));
  });

  router.post('/api/admin/workflows/:id/reimport', uploads.single('file', 'workflow'), async (req, res) => {
    const { apply } = validate(reimportFields, req.body ?? {});
    if (!req.file || req.file.size === 0) throw new DomainError('invalid', "file: the changed workflow file is required (the editor's JSON, the API JSON or a PNG/WebP carrying it)");
    res.json(await forms.reimport(String(req.params.id), await fs.readFile(req.file.path), apply === 'true'));
  });

  router.get('/api/admin/workflows/import/node-map', async (_req, res) => {
    res.json(await nodeMap.status());
  });

  router.post('/api/admin/workflows/import/node-map/refresh', async (_req, res) => {
    res.json(await nodeMap.refresh());
  });

  router.post('/api/admin/workflows/import', uploads.single('file', 'workflow'), async (req, res) => {
    const fields = validate(importFields, req.body ?? {});
    if (!req.file) throw new DomainError('invalid', "file: a workflow file is required (the editor's JSON, the API JSON, a PNG/WebP carrying a workflow, or a Studio workflow ZIP)");
    if (req.file.size === 0) throw new DomainError('invalid', 'file: the file is empty');
    const bytes = await fs.readFile(req.file.path);
    res.json(await importer.import(bytes, { fileName: req.file.originalname, ...fields }));
  });

  router.get('/api/admin/workflows/:id/export', async (req, res) => {
    const { dir, fileName } = await importer.exportFolder(String(req.params.id));
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    res.set('Content-Type', 'application/zip');
    res.set('Content-Disposition', contentDisposition('attachment', fileName));
    res.set('Cache-Control', 'no-store');
    await writeDirectoryZip(dir, res, controller.signal).catch((err: unknown) => {
      if (!controller.signal.aborted) throw err;
    });
  });

  return router;
}

/** `POST /api/admin/workflows/import` (multipart `file`, optional `id`, `name`, `category`). */
import fs from 'node:fs/promises';
import express from 'express';
import { z } from 'zod';
import { HttpError, validate } from '../../http/errors.js';
import type { Uploads } from '../../http/uploads.js';
import type { WorkflowImportService } from './workflow-import.service.js';

const importFields = z.object({
  id: z.string().max(100).optional(),
  name: z.string().max(200).optional(),
  category: z.string().max(100).optional(),
});

/** The import route. */
export function workflowImportRoutes(importer: WorkflowImportService, uploads: Uploads): express.Router {
  const router = express.Router();
  router.post('/api/admin/workflows/import', uploads.single('file', 'workflow'), async (req, res) => {
    const fields = validate(importFields, req.body ?? {});
    if (!req.file) throw new HttpError(400, 'file: a workflow file is required (the editor\'s JSON, the API JSON, or a PNG/WebP carrying a workflow)');
    if (req.file.size === 0) throw new HttpError(400, 'file: the file is empty');
    const bytes = await fs.readFile(req.file.path);
    const result = await importer.import(bytes, { fileName: req.file.originalname, ...fields });
    res.json(result);
  });
  return router;
}

/**
 * Update from git and the syncs (spec "System and settings", Versioning 6). Parse and delegate.
 */
import express from 'express';
import { validate } from '../http/errors.js';
import type { UpdateService } from './update.service.js';
import type { UpdateRepository } from './update-repository.js';
import { updateBody, updateRepositoryBody } from '../contracts/system.contract.js';

/** `GET /system/remote-version`, `POST /system/update`, `GET/PUT /system/update-repository`, `POST /workflows/sync`, `POST /models/sync`. */
export function updateRoutes(service: UpdateService, repository: UpdateRepository): express.Router {
  const router = express.Router();

  router.get('/api/admin/system/update-repository', (_req, res) => {
    res.json(repository.current());
  });

  router.put('/api/admin/system/update-repository', (req, res) => {
    const body = validate(updateRepositoryBody, req.body ?? {}, { ownMessages: true });
    res.json(repository.set(body.url));
  });

  router.get('/api/admin/system/remote-version', async (_req, res) => {
    res.set('Cache-Control', 'no-store').json(await service.remoteVersion());
  });

  router.post('/api/admin/system/update', async (req, res) => {
    const body = validate(updateBody, req.body ?? {});
    res.json(await service.update(body.skip_components ?? []));
  });

  router.post('/api/admin/workflows/sync', async (_req, res) => {
    res.json(await service.syncWorkflows());
  });

  router.post('/api/admin/models/sync', async (_req, res) => {
    res.json(await service.syncModels());
  });

  return router;
}

/**
 * The setup page's routes (README "Engine setup"). Parse, validate and delegate.
 */
import express from 'express';
import { installBody, removeVersionBody, settingsBody, updateBody, useInstallBody } from '../contracts/setup.contract.js';
import { validate } from '../http/errors.js';
import type { SetupService } from './setup.service.js';

export function setupRoutes(service: SetupService): express.Router {
  const router = express.Router();

  router.get('/api/admin/setup', async (req, res) => {
    res.json(await service.report(req.query.fresh === '1' || req.query.fresh === 'true'));
  });

  router.get('/api/admin/setup/first-start', (_req, res) => {
    res.json(service.firstStart());
  });

  router.get('/api/admin/setup/releases', async (_req, res) => {
    res.json(await service.releases());
  });

  router.post('/api/admin/setup/engine', async (req, res) => {
    const body = validate(installBody, req.body ?? {}, { ownMessages: true });
    res.status(202).json(await service.install(body.version));
  });

  router.delete('/api/admin/setup/engine', (_req, res) => {
    res.json(service.cancel());
  });

  router.post('/api/admin/setup/use', async (req, res) => {
    const body = validate(useInstallBody, req.body ?? {}, { ownMessages: true });
    const result = await service.use(body);
    res.status('status' in result && result.status === 'switched' ? 200 : 202).json(result);
  });

  router.post('/api/admin/setup/update', async (req, res) => {
    const body = validate(updateBody, req.body ?? {}, { ownMessages: true });
    res.status(202).json(await service.update(body.version));
  });

  router.post('/api/admin/setup/rollback', async (_req, res) => {
    res.json(await service.rollback());
  });

  router.post('/api/admin/setup/versions/remove', async (req, res) => {
    const body = validate(removeVersionBody, req.body ?? {}, { ownMessages: true });
    res.json(await service.removeVersion(body.dir));
  });

  router.post('/api/admin/setup/standin', (_req, res) => {
    res.json(service.keepStandin());
  });

  router.put('/api/admin/setup/settings', (req, res) => {
    const body = validate(settingsBody, req.body ?? {}, { ownMessages: true });
    res.json(service.settings(body));
  });

  return router;
}

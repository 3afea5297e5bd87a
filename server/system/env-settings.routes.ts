/**
 * Environment settings and the secret reveal (spec "System and settings"). Parse and delegate.
 */
import express from 'express';
import { validate } from '../http/errors.js';
import { clientAddress } from '../http/authenticator.js';
import type { EnvSettingsService } from './env-settings.service.js';
import { envPutBody, revealBody } from '../contracts/system.contract.js';

/** `GET/PUT /api/admin/settings/env`, `POST /api/admin/settings/reveal`. */
export function envSettingsRoutes(service: EnvSettingsService): express.Router {
  const router = express.Router();

  router.get('/api/admin/settings/env', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ groups: service.groups() });
  });

  router.put('/api/admin/settings/env', async (req, res) => {
    const body = validate(envPutBody, req.body ?? {});
    const entry = await service.update(body.key, body.value);
    res.json({ status: 'updated', entry });
  });

  router.post('/api/admin/settings/reveal', (req, res) => {
    const body = validate(revealBody, req.body ?? {});
    res.set('Cache-Control', 'no-store').json(service.reveal(clientAddress(req), body.api_key));
  });

  return router;
}

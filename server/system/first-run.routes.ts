/**
 * `GET/PUT /api/admin/system/first-run`: the home page's first-run guide (README "First-run
 * guide"). Parse, validate and delegate.
 */
import express from 'express';
import { firstRunBody } from '../contracts/first-run.contract.js';
import { validate } from '../http/errors.js';
import { deviceOf } from '../http/sign-in-log.js';
import type { FirstRunService } from './first-run.service.js';

export function firstRunRoutes(service: FirstRunService): express.Router {
  const router = express.Router();

  router.get('/api/admin/system/first-run', (req, res) => {
    res.set('Cache-Control', 'no-store').json(service.report(deviceOf(req)));
  });

  router.put('/api/admin/system/first-run', (req, res) => {
    const body = validate(firstRunBody, req.body ?? {});
    res.json(service.update(body, deviceOf(req)));
  });

  return router;
}

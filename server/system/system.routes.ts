/**
 * System status, uptime and telemetry (spec "System and settings"). Parse and delegate.
 */
import express from 'express';
import { romeIso } from '../time.js';
import type { StatusService } from './status.service.js';
import type { TelemetryService } from './telemetry.service.js';

export interface SystemRouteDeps {
  status: StatusService;
  telemetry: TelemetryService;
  startedAt: number;
}

/** `GET /api/admin/system/status`, `/system/uptime`, `/telemetry`, `/telemetry/history`. */
export function systemRoutes({ status, telemetry, startedAt }: SystemRouteDeps): express.Router {
  const router = express.Router();

  router.get('/api/admin/system/status', async (_req, res) => {
    res.set('Cache-Control', 'no-store').json(await status.status());
  });

  router.get('/api/admin/system/uptime', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({
      started_at: romeIso(new Date(startedAt)),
      uptime_seconds: Math.round((Date.now() - startedAt) / 1000),
    });
  });

  router.get('/api/admin/telemetry', async (_req, res) => {
    res.set('Cache-Control', 'no-store').json(await telemetry.current());
  });

  router.get('/api/admin/telemetry/history', (_req, res) => {
    res.set('Cache-Control', 'no-store').json(telemetry.history());
  });

  return router;
}

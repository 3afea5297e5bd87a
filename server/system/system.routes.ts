/**
 * System status, uptime and telemetry (spec "System and settings"). Parse and delegate.
 */
import express from 'express';
import { DomainError } from '../domain-error.js';
import { romeIso } from '../time.js';
import type { RestartService } from './restart.service.js';
import type { StatusService } from './status.service.js';
import type { TelemetryService } from './telemetry.service.js';

export interface SystemRouteDeps {
  status: StatusService;
  telemetry: TelemetryService;
  restart: RestartService;
  startedAt: number;
}

/** `GET /api/admin/system/status`, `/system/uptime`, `/telemetry`, `/telemetry/history`; `POST /system/restart`. */
export function systemRoutes({ status, telemetry, restart, startedAt }: SystemRouteDeps): express.Router {
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

  router.post('/api/admin/system/restart', (_req, res) => {
    if (!restart.supported) throw new DomainError('conflict', 'This Studio was started without a way to relaunch itself; restart it from where it was started');
    // Answer first: the restart starts once the response has gone out.
    res.once('finish', () => restart.schedule(0, 'requested'));
    res.json({ status: 'restarting', message: 'Studio is restarting; reconnect in about 2 seconds' });
  });

  return router;
}

/**
 * `GET /api/health` (public): liveness for scripts, the desktop shell and the restart flow. It
 * says nothing secret: status, version and the engine's state.
 */
import express from 'express';

export interface HealthDeps {
  version: string;
  startedAt: number;
  engineStatus: () => string;
}

/** The health route. */
export function healthRoutes({ version, startedAt, engineStatus }: HealthDeps): express.Router {
  const router = express.Router();
  router.get('/api/health', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json({ status: 'ok', version, engine: engineStatus(), uptime_seconds: Math.round((Date.now() - startedAt) / 1000) });
  });
  return router;
}

/**
 * `GET /api/health` (public): liveness for scripts, the desktop shell and the restart flow. It
 * says nothing secret: status, version and the engine's state.
 */
import express from 'express';
import { sendJsonText } from '../http/json-text.js';

export interface HealthDeps {
  version: string;
  startedAt: number;
  engineStatus: () => string;
}

/** The health route. */
export function healthRoutes({ version, startedAt, engineStatus }: HealthDeps): express.Router {
  const router = express.Router();
  // Sent as text with its headers set directly: `res.json` would have the first answer of a start
  // load mime-types' tables (~4% of the start's CPU) only to add the charset it always adds.
  router.get('/api/health', (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    sendJsonText(req, res, JSON.stringify({ status: 'ok', version, engine: engineStatus(), uptime_seconds: Math.round((Date.now() - startedAt) / 1000) }));
  });
  return router;
}

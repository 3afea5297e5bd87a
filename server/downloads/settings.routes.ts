/**
 * `GET/PUT /api/admin/settings`: `{max_concurrent}`, the number of downloads that run at once.
 * A PUT is applied at once: raising the limit starts queued downloads, lowering it lets the
 * running ones finish.
 */
import express from 'express';
import { validate } from '../http/errors.js';
import { settingsPutBody } from '../contracts/downloads.contract.js';

/** What the routes need from the download manager. */
export interface ConcurrencySetting {
  maxConcurrent(): number;
  /** Clamps to 1–10, stores and applies; returns the value in force. */
  setMaxConcurrent(value: number): number;
}

/** Settings routes. */
export function settingsRoutes(downloads: ConcurrencySetting): express.Router {
  const router = express.Router();

  router.get('/api/admin/settings', (_req, res) => {
    res.json({ max_concurrent: downloads.maxConcurrent() });
  });

  router.put('/api/admin/settings', (req, res) => {
    const body = validate(settingsPutBody, req.body ?? {});
    if (body.max_concurrent !== undefined) downloads.setMaxConcurrent(body.max_concurrent);
    res.json({ max_concurrent: downloads.maxConcurrent() });
  });

  return router;
}

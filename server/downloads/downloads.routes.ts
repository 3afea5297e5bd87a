/**
 * The download status stream (`GET /api/admin/models/status`, spec "Download status entry") and
 * `GET/PUT /api/admin/settings`: `{max_concurrent}`, the number of downloads that run at once. A
 * PUT is applied at once: raising the limit starts queued downloads, lowering it lets the running
 * ones finish. Queueing and deleting files go through the catalogs, which know the file names.
 */
import express from 'express';
import { settingsPutBody } from '../contracts/downloads.contract.js';
import { validate } from '../http/errors.js';
import type { DownloadManager } from './download-manager.service.js';
import type { StatusStreams } from './status-stream.js';

export function downloadsRoutes(streams: StatusStreams, downloads: DownloadManager): express.Router {
  const router = express.Router();

  router.get('/api/admin/models/status', (_req, res) => {
    streams.open(res);
  });

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

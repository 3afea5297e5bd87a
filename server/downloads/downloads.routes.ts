/**
 * The download status stream route (`GET /api/admin/models/status`, spec "Download status
 * entry"). Queueing and deleting files go through the catalogs, which know the file names.
 */
import express from 'express';
import type { StatusStreams } from './status-stream.js';

/** The status stream route. */
export function downloadsRoutes(streams: StatusStreams): express.Router {
  const router = express.Router();

  router.get('/api/admin/models/status', (_req, res) => {
    streams.open(res);
  });

  return router;
}

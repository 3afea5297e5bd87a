/**
 * The disk page's routes (README "Disk page"). Parse and delegate.
 */
import express from 'express';
import { deleteOrphansBody, linkDuplicatesBody, orphansQuery, retentionSettingsBody } from '../contracts/disk.contract.js';
import { validate } from '../http/errors.js';
import type { DiskUsageService } from './disk-usage.service.js';
import type { DuplicatesService } from './duplicates.service.js';
import type { OrphansService } from './orphans.service.js';
import type { RetentionService } from './retention.service.js';

export function diskRoutes(deps: { usage: DiskUsageService; duplicates: DuplicatesService; orphans: OrphansService; retention: RetentionService }): express.Router {
  const router = express.Router();

  router.get('/api/admin/disk', async (_req, res) => {
    res.json(await deps.usage.report());
  });

  router.get('/api/admin/disk/duplicates', async (_req, res) => {
    res.json(await deps.duplicates.report());
  });

  router.post('/api/admin/disk/duplicates/link', async (req, res) => {
    const body = validate(linkDuplicatesBody, req.body ?? {}, { ownMessages: true });
    res.json(await deps.duplicates.link(body.sha256));
  });

  router.get('/api/admin/disk/orphans', async (req, res) => {
    const query = validate(orphansQuery, req.query, 'query');
    res.json(await deps.orphans.report(query.input_days));
  });

  router.post('/api/admin/disk/orphans/delete', async (req, res) => {
    const body = validate(deleteOrphansBody, req.body ?? {}, { ownMessages: true });
    res.json(await deps.orphans.delete(body.paths, body.input_days));
  });

  router.get('/api/admin/disk/retention', async (_req, res) => {
    res.json(await deps.retention.state());
  });

  // "Would free X GB" for a rule, before it is turned on; nothing is removed.
  router.post('/api/admin/disk/retention/preview', async (req, res) => {
    res.json(await deps.retention.plan(req.body ?? {}));
  });

  router.put('/api/admin/disk/retention', async (req, res) => {
    const body = validate(retentionSettingsBody, req.body ?? {}, { ownMessages: true });
    res.json(await deps.retention.configure(body.enabled, { days: body.days, max_gb: body.max_gb }));
  });

  router.post('/api/admin/disk/retention/run', async (_req, res) => {
    res.json(await deps.retention.run());
  });

  return router;
}

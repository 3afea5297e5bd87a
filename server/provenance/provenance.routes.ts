/**
 * Provenance routes: a job's lock and how this Studio differs from it, Run again (a job here, or
 * a lock brought in a job package ZIP or an output PNG), and the output metadata settings.
 */
import fs from 'node:fs';
import express from 'express';
import { validate } from '../http/errors.js';
import { DomainError } from '../domain-error.js';
import { actorOf } from '../http/actor.js';
import { submitterOf } from '../http/submitter.js';
import type { Uploads } from '../http/uploads.js';
import { provenanceSettingsBody, runAgainBody, runLockBody } from '../contracts/provenance.contract.js';
import type { ProvenanceService } from './provenance.service.js';
import type { ProvenanceSettingsStore } from './provenance-settings.js';
import { readLockFrom } from './lock-import.js';

export function provenanceRoutes(service: ProvenanceService, settings: ProvenanceSettingsStore, uploads: Uploads): express.Router {
  const router = express.Router();

  router.get('/api/admin/history/:promptId/lock', async (req, res) => {
    res.json(await service.report(String(req.params.promptId), actorOf(res)));
  });

  router.post('/api/admin/history/:promptId/run-again', async (req, res) => {
    const body = validate(runAgainBody, req.body ?? {});
    res.json(await service.runJobAgain(String(req.params.promptId), body.run_anyway ?? false, submitterOf(req, res), actorOf(res)));
  });

  router.post('/api/admin/provenance/import', uploads.single('file', 'inputs'), async (req, res) => {
    if (!req.file) throw new DomainError('invalid', 'file: a job package ZIP or an output PNG of a Studio job is required');
    if (!fs.existsSync(req.file.path) || req.file.size === 0) throw new DomainError('invalid', 'file: the file is empty');
    res.json(await service.reportOf(await readLockFrom(req.file.path)));
  });

  router.post('/api/admin/provenance/run', async (req, res) => {
    const body = validate(runLockBody, req.body ?? {}, { ownMessages: true });
    res.json(await service.runLock(body.lock, body.run_anyway ?? false, submitterOf(req, res), actorOf(res)));
  });

  router.get('/api/admin/provenance/settings', (_req, res) => {
    res.json(settings.get());
  });

  router.put('/api/admin/provenance/settings', (req, res) => {
    res.json(settings.set(validate(provenanceSettingsBody, req.body ?? {}, { ownMessages: true })));
  });

  return router;
}

/**
 * The llama.cpp runtimes routes (README "LLM runtimes"). Parse and delegate.
 */
import express from 'express';
import { validate } from '../../http/errors.js';
import { runtimeActivateBody, runtimeBuildBody, runtimeInstallBody } from '../../contracts/llm-runtimes.contract.js';
import type { RuntimesService } from './runtimes.service.js';

export function runtimesRoutes(runtimes: RuntimesService): express.Router {
  const router = express.Router();

  router.get('/api/admin/llm/runtimes', async (req, res) => {
    res.json(await runtimes.view(req.query.refresh === '1' || req.query.refresh === 'true'));
  });

  router.post('/api/admin/llm/runtimes/install', async (req, res) => {
    const body = validate(runtimeInstallBody, req.body ?? {});
    res.status(202).json({ status: 'installing', job: await runtimes.install(body.asset, body.activate ?? true) });
  });

  router.post('/api/admin/llm/runtimes/build', async (req, res) => {
    const body = validate(runtimeBuildBody, req.body ?? {});
    res.status(202).json({ status: 'building', job: await runtimes.build(body.activate ?? true) });
  });

  router.post('/api/admin/llm/runtimes/activate', async (req, res) => {
    res.json(await runtimes.activate(validate(runtimeActivateBody, req.body ?? {}).id));
  });

  router.post('/api/admin/llm/runtimes/rollback', async (_req, res) => {
    res.json(await runtimes.rollback());
  });

  router.delete('/api/admin/llm/runtimes/:id', async (req, res) => {
    res.json(await runtimes.remove(String(req.params.id)));
  });

  return router;
}

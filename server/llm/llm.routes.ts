/**
 * LLM server routes (spec "LLM"; the model catalog routes live with the catalogs). Parse and
 * delegate.
 */
import express from 'express';
import { z } from 'zod';
import { HttpError, validate } from '../http/errors.js';
import { llmConfigPatch } from './llm-config.store.js';
import type { LlmService } from './llm.service.js';

const startBody = llmConfigPatch.extend({ model: z.string({ error: 'required (the file name of a downloaded LLM model)' }).min(1) });

export function llmRoutes(llm: LlmService): express.Router {
  const router = express.Router();

  router.get('/api/admin/llm/status', async (_req, res) => {
    res.json(await llm.status());
  });

  router.post('/api/admin/llm/start', async (req, res) => {
    const { model, ...patch } = validate(startBody, req.body ?? {});
    res.json(await llm.start(model, patch));
  });

  router.post('/api/admin/llm/stop', async (_req, res) => {
    res.json(await llm.stop());
  });

  router.post('/api/admin/llm/config', async (req, res) => {
    res.json(await llm.saveConfig(validate(llmConfigPatch, req.body ?? {})));
  });

  router.post('/api/admin/llm/chat', async (req, res) => {
    const body = req.body as unknown;
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new HttpError(400, 'Send a JSON object with messages');
    await llm.chat(body as Record<string, unknown>, res);
  });

  return router;
}

/**
 * `GET /api/admin/llm/fit` (README "LLM: what fits"). Parse and delegate.
 */
import express from 'express';
import { validate } from '../../http/errors.js';
import { fitQuery } from '../../contracts/llm-fit.contract.js';
import type { FitService } from './fit.service.js';

export function fitRoutes(fit: FitService): express.Router {
  const router = express.Router();
  router.get('/api/admin/llm/fit', async (req, res) => {
    res.json(await fit.view(validate(fitQuery, req.query, 'query').ctx_size));
  });
  return router;
}

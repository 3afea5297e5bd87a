/**
 * Any GGUF from the repository host (README "LLM: any GGUF"). Parse and delegate.
 */
import express from 'express';
import { validate } from '../../http/errors.js';
import { repoFileAddBody, repoFilesQuery } from '../../contracts/llm-repo.contract.js';
import type { RepoGgufService } from './repo-gguf.service.js';

export function repoGgufRoutes(repos: RepoGgufService): express.Router {
  const router = express.Router();
  router.get('/api/admin/llm/repo-files', async (req, res) => {
    res.json(await repos.list(validate(repoFilesQuery, req.query, 'query').repo.trim()));
  });
  router.post('/api/admin/llm/repo-files/add', async (req, res) => {
    const body = validate(repoFileAddBody, req.body ?? {});
    res.json(await repos.add(body.repo.trim(), body.path));
  });
  return router;
}

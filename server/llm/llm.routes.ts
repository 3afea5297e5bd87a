/**
 * LLM routes (spec "LLM"; the model catalog routes live with the catalogs): the server, the
 * llama.cpp runtimes (README "LLM runtimes"), what fits (README "LLM: what fits") and any GGUF
 * from the repository host (README "LLM: any GGUF"). Parse and delegate.
 */
import { once } from 'node:events';
import express from 'express';
import { validate } from '../http/errors.js';
import { improvePromptBody, llmChatBody, llmConfigPatch, llmStartBody } from '../contracts/llm.contract.js';
import { fitQuery } from '../contracts/llm-fit.contract.js';
import { repoFileAddBody, repoFilesQuery } from '../contracts/llm-repo.contract.js';
import { runtimeActivateBody, runtimeBuildBody, runtimeInstallBody } from '../contracts/llm-runtimes.contract.js';
import type { ChatAnswer } from './chat-proxy.js';
import type { FitService } from './fit/fit.service.js';
import type { LlmService } from './llm.service.js';
import type { RepoGgufService } from './repo/repo-gguf.service.js';
import type { RuntimesService } from './runtimes/runtimes.service.js';

export function llmRoutes(llm: LlmService, runtimes: RuntimesService, fit: FitService, repos: RepoGgufService): express.Router {
  const router = express.Router();

  router.get('/api/admin/llm/status', async (_req, res) => {
    res.json(await llm.status());
  });

  router.post('/api/admin/llm/start', async (req, res) => {
    const { model, ...patch } = validate(llmStartBody, req.body ?? {});
    res.json(await llm.start(model, patch));
  });

  router.post('/api/admin/llm/stop', async (_req, res) => {
    res.json(await llm.stop());
  });

  router.post('/api/admin/llm/config', async (req, res) => {
    res.json(await llm.saveConfig(validate(llmConfigPatch, req.body ?? {})));
  });

  router.post('/api/admin/llm/chat', async (req, res) => {
    const body = validate(llmChatBody, req.body, { notObject: 'Send a JSON object with messages' });
    await relay(res, (left) => llm.chat(body, left));
  });

  router.post('/api/admin/llm/improve-prompt', async (req, res) => {
    const body = validate(improvePromptBody, req.body ?? {});
    await relay(res, (left) => llm.improvePrompt(body.text, body.kind, left));
  });

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

  router.post('/api/admin/llm/runtimes/build/cancel', async (_req, res) => {
    res.json({ status: 'cancelled', job: await runtimes.cancelBuild() });
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

  router.get('/api/admin/llm/fit', async (req, res) => {
    res.json(await fit.view(validate(fitQuery, req.query, 'query').ctx_size));
  });

  router.get('/api/admin/llm/repo-files', async (req, res) => {
    res.json(await repos.list(validate(repoFilesQuery, req.query, 'query').repo.trim()));
  });

  router.post('/api/admin/llm/repo-files/add', async (req, res) => {
    const body = validate(repoFileAddBody, req.body ?? {});
    res.json(await repos.add(body.repo.trim(), body.path));
  });

  return router;
}

/**
 * Open a chat answer and send it: JSON as it is, a stream as server-sent events written as they
 * come, waiting for a slow client to drain. `left` aborts when the client leaves before the answer
 * is complete (the upstream request ends, and so does the writing).
 */
async function relay(res: express.Response, open: (left: AbortSignal) => Promise<ChatAnswer>): Promise<void> {
  const leaving = new AbortController();
  const left = leaving.signal;
  res.on('close', () => {
    if (!res.writableFinished) leaving.abort();
  });
  const answer = await open(left);
  if (answer.kind === 'json') return void res.json(answer.body);
  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache, no-transform');
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
  for await (const chunk of answer.chunks) {
    if (left.aborted) return;
    // Rejects when the client leaves: the loop then stops at its next turn.
    if (!res.write(chunk)) await once(res, 'drain', { signal: left }).catch(() => undefined);
  }
  res.end();
}

/**
 * LLM server routes (spec "LLM"; the model catalog routes live with the catalogs). Parse and
 * delegate.
 */
import express from 'express';
import { validate } from '../http/errors.js';
import { improvePromptBody, llmChatBody, llmConfigPatch, llmStartBody } from '../contracts/llm.contract.js';
import type { ChatAnswer } from './chat-proxy.js';
import type { LlmService } from './llm.service.js';

export function llmRoutes(llm: LlmService): express.Router {
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
    const left = leftSignal(res);
    await relay(res, await llm.chat(body, left), left);
  });

  router.post('/api/admin/llm/improve-prompt', async (req, res) => {
    const body = validate(improvePromptBody, req.body ?? {});
    const left = leftSignal(res);
    await relay(res, await llm.improvePrompt(body.text, body.kind, left), left);
  });

  return router;
}

/** Aborts when the client leaves before the answer is complete. */
function leftSignal(res: express.Response): AbortSignal {
  const left = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) left.abort();
  });
  return left.signal;
}

/** Send a chat answer: JSON as it is, a stream as server-sent events written as they come. */
async function relay(res: express.Response, answer: ChatAnswer, left: AbortSignal): Promise<void> {
  if (answer.kind === 'json') return void res.json(answer.body);
  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache, no-transform');
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
  await writeStream(res, answer.chunks, left);
}

/** Write each chunk as it comes, waiting for a slow client to drain; stop when it leaves. */
async function writeStream(res: express.Response, chunks: AsyncIterable<string | Buffer>, left: AbortSignal): Promise<void> {
  for await (const chunk of chunks) {
    if (left.aborted) return;
    if (!res.write(chunk)) await new Promise<void>((resolve) => {
      const done = () => {
        res.off('drain', done);
        left.removeEventListener('abort', done);
        resolve();
      };
      res.on('drain', done);
      left.addEventListener('abort', done);
    });
  }
  res.end();
}

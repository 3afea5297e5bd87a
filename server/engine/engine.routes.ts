/**
 * `GET /api/engine/view`: a file from the engine, streamed through without buffering (a video
 * can be hundreds of MB). 404 when the file is missing or the engine unreachable.
 */
import express from 'express';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import { HttpError, validate } from '../http/errors.js';
import type { EngineClient } from './engine.client.js';

const viewQuery = z.object({
  filename: z.string().min(1),
  type: z.enum(['input', 'output', 'temp']).default('input'),
  subfolder: z.string().default(''),
});

const PASSED_HEADERS = ['content-type', 'content-length', 'last-modified', 'etag'];

/** Engine proxy routes. */
export function engineRoutes(engine: EngineClient): express.Router {
  const router = express.Router();
  router.get('/api/engine/view', async (req, res) => {
    const query = validate(viewQuery, req.query, 'query');
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const response = await engine.viewStream({ ...query, signal: abort.signal });
    if (!response) throw new HttpError(404, 'The engine is not reachable');
    if (response.status < 200 || response.status >= 300) response.body.destroy();
    if (response.status === 400 || response.status === 403) throw new HttpError(400, `Invalid file path: ${query.filename}`);
    if (response.status < 200 || response.status >= 300) throw new HttpError(404, `File not found: ${query.filename}`);
    for (const name of PASSED_HEADERS) {
      const value = response.headers[name];
      if (value) res.setHeader(name, value);
    }
    res.setHeader('Content-Disposition', `inline; filename="${query.filename.replace(/["\\\r\n]/g, '_')}"`);
    await pipeline(response.body, res).catch((err: unknown) => {
      if (!abort.signal.aborted) throw err;
    });
  });
  return router;
}

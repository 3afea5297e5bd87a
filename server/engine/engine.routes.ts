/**
 * `GET /api/engine/view`: a file the engine serves, never buffered whole (a video can be hundreds
 * of MB). From a folder the engine shares with Studio (see `shared-folders.ts`) the file is read
 * from disk with the engine's own path rules; anything else streams through from the engine
 * (`EngineClient.viewStream`, over `node:http`).
 * Either way `Range` works (video seeking), and 404 means missing or engine unreachable.
 */
import express from 'express';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { contentDisposition } from '../http/content-disposition.js';
import { validate } from '../http/errors.js';
import { DomainError } from '../domain-error.js';
import { sendFileResponse, USER_FILE_HEADERS } from '../http/file-response.js';
import type { EngineClient } from './engine.client.js';
import { pyBasename } from './engine-paths.js';
import type { SharedFolders } from './shared-folders.js';
import { safeViewContentType, viewContentType } from './view-file.js';
import { viewQuery, type ViewQuery } from '../contracts/engine.contract.js';


/** Request headers a browser sends for seeking and revalidation; the engine honours them. */
const FORWARDED_REQUEST_HEADERS = ['range', 'if-range', 'if-none-match', 'if-modified-since'];
const PASSED_HEADERS = ['content-length', 'content-range', 'accept-ranges', 'last-modified', 'etag'];

/** Engine file routes. */
export function engineRoutes(engine: EngineClient, shared: SharedFolders): express.Router {
  const router = express.Router();
  const serve = serveEngineView(engine, shared);
  router.get('/api/engine/view', async (req, res) => serve(req, res, validate(viewQuery, req.query, 'query')));
  return router;
}

/** A file the engine serves, for `/api/engine/view` and the engine's own `/view` that Studio serves (issue 44). */
export function serveEngineView(engine: EngineClient, shared: SharedFolders): (req: express.Request, res: express.Response, query: ViewQuery) => Promise<void> {
  return async (req, res, query) => {
    const name = displayName(query.filename);
    res.set(USER_FILE_HEADERS);
    const local = shared.resolve(query);
    if (local && 'status' in local) throw new DomainError('invalid', `Invalid file path: ${query.filename}`);
    if (!local) return streamFromEngine(engine, req, res, query, name);
    const within = shared.dirOf(local.folder);
    await sendFileResponse(req, res, local.file, {
      contentType: viewContentType(name),
      disposition: contentDisposition('inline', name),
      within,
      missing: `File not found: ${query.filename}`,
    });
  };
}

/**
 * What `/api/engine/view` answers for a file that does not exist, in the engine's present state:
 * for the view guard (issue 43), so a file someone may not see answers exactly as a missing one
 * (a folder Studio reads itself says "File not found"; one only the engine serves says the engine
 * is not reachable while it is down, and otherwise "File not found" once the engine answered).
 */
export function viewAsMissing(engine: EngineClient, shared: SharedFolders): (query: ViewQuery) => Promise<never> {
  return async (query) => {
    const local = shared.resolve(query);
    if (local && 'status' in local) throw new DomainError('invalid', `Invalid file path: ${query.filename}`);
    if (!local) {
      const response = await engine.viewStream(query);
      if (!response) throw new DomainError('not_found', 'The engine is not reachable');
      response.body.destroy();
    }
    throw new DomainError('not_found', `File not found: ${query.filename}`);
  };
}

/** Relay the engine's `/view` answer: the browser's range and revalidation headers go along. */
async function streamFromEngine(engine: EngineClient, req: express.Request, res: express.Response, query: ViewQuery, name: string): Promise<void> {
  const headers: Record<string, string> = {};
  for (const header of FORWARDED_REQUEST_HEADERS) {
    const value = req.headers[header];
    if (typeof value === 'string') headers[header] = value;
  }
  const abort = new AbortController();
  res.on('close', () => abort.abort());
  const response = await engine.viewStream({ ...query, headers, signal: abort.signal });
  if (!response) throw new DomainError('not_found', 'The engine is not reachable');
  const { status } = response;
  if (status !== 200 && status !== 206) response.body.destroy();
  if (status === 304) return void res.status(304).end();
  if (status === 400 || status === 403) throw new DomainError('invalid', `Invalid file path: ${query.filename}`);
  if (status === 416) {
    const range = response.headers['content-range'];
    if (range) res.setHeader('Content-Range', range);
    throw new DomainError('out_of_range', `Range not satisfiable: ${req.headers.range ?? ''}`);
  }
  if (status !== 200 && status !== 206) throw new DomainError('not_found', `File not found: ${query.filename}`);
  res.status(status);
  for (const header of PASSED_HEADERS) {
    const value = response.headers[header];
    if (value) res.setHeader(header, value);
  }
  res.setHeader('Content-Type', safeViewContentType(response.headers['content-type'] ?? viewContentType(name)));
  res.setHeader('Content-Disposition', contentDisposition('inline', name));
  await pipeline(response.body, res).catch((err: unknown) => {
    if (!abort.signal.aborted) throw err;
  });
}

/** The name the file is offered under: no `[output]` annotation, no folders. */
function displayName(filename: string): string {
  return pyBasename(filename.replace(/ \[(input|output|temp)\]$/, '')) || path.basename(filename);
}

/**
 * Serves the built Vue renderer: hashed assets under `/static/` cached for a year (their names
 * change with their content), and `index.html` with `no-cache` for every page route so a new
 * build is picked up at once (history-API fallback). Until the renderer is built, the
 * `fallback` router (the server's own pages) answers instead.
 */
import express from 'express';
import fs from 'node:fs';
import path from 'node:path';
import { isDoorPath } from './door-credentials.js';

export interface RendererRouteDeps {
  /** `renderer/dist` of the build. */
  distDir: string;
  /** Answers page routes while `distDir/index.html` is missing. */
  fallback?: express.Router;
}

const IMMUTABLE = 'public, max-age=31536000, immutable';

/** Paths the SPA never owns: the API, the socket, the server's login page. */
function isReserved(urlPath: string): boolean {
  // The engine's API (`/comfy…`) answers 404 for what it does not serve, never the app's page.
  return urlPath === '/api' || urlPath.startsWith('/api/') || urlPath === '/ws' || urlPath.startsWith('/ws/') || urlPath === '/login' || isDoorPath(urlPath);
}

/** A request for a file (a dot in the last segment) rather than a page. */
function looksLikeFile(urlPath: string): boolean {
  const last = urlPath.slice(urlPath.lastIndexOf('/') + 1);
  return last.includes('.');
}

/** The renderer's routes (mount after the API routes). */
export function rendererRoutes({ distDir, fallback }: RendererRouteDeps): express.Router {
  const router = express.Router();
  const indexFile = path.join(distDir, 'index.html');
  // Checked per request so a build made while Studio runs is served without a restart.
  const built = () => fs.existsSync(indexFile);

  const assets = express.static(path.join(distDir, 'static'), {
    index: false,
    etag: true,
    setHeaders: (res) => res.setHeader('Cache-Control', IMMUTABLE),
  });
  // A missing asset leaves this router for the app's plain 404 (never index.html: a stale page
  // asking for an old hash must not get HTML back as JavaScript).
  router.use('/static', (req, res, next) => {
    if (!built()) return next('router');
    assets(req, res, (err?: unknown) => next(err ?? 'router'));
  });

  // Other files at the root of the build (none today; a robots.txt or a manifest later).
  const rootFiles = express.static(distDir, {
    index: false,
    setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache'),
  });

  router.get('/{*rest}', (req, res, next) => {
    if (!built()) {
      if (fallback) return fallback(req, res, next);
      return next();
    }
    if (isReserved(req.path)) return next();
    if (looksLikeFile(req.path)) {
      if (req.path === '/index.html') return sendIndex(res, next);
      return rootFiles(req, res, next);
    }
    sendIndex(res, next);
  });

  function sendIndex(res: express.Response, next: express.NextFunction): void {
    res.sendFile(indexFile, { headers: { 'Cache-Control': 'no-cache' }, lastModified: true }, (err) => {
      if (err && !res.headersSent) next(err);
    });
  }

  return router;
}

/**
 * `GET /api/admin/system/browser-extension`: the browser extension's folder as a ZIP to unpack
 * and load (Chromium "Load unpacked"); 404 when the folder is missing from this installation.
 */
import express from 'express';
import fs from 'node:fs';
import { writeDirectoryZip } from '../assets/assets-zip.js';
import { contentDisposition } from '../http/content-disposition.js';
import { DomainError } from '../domain-error.js';

/** The extension download route; `dir` is `<appDir>/resources/browser-extension`. */
export function extensionRoutes(dir: string): express.Router {
  const router = express.Router();

  router.get('/api/admin/system/browser-extension', async (_req, res) => {
    if (!fs.existsSync(`${dir}/manifest.json`)) throw new DomainError('not_found', 'The browser extension is not part of this installation (resources/browser-extension is missing)');
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    res.set('Content-Type', 'application/zip');
    res.set('Content-Disposition', contentDisposition('attachment', 'studio-browser-extension.zip'));
    res.set('Cache-Control', 'no-store');
    await writeDirectoryZip(dir, res, controller.signal).catch((err: unknown) => {
      if (!controller.signal.aborted) throw err;
    });
  });

  return router;
}

/**
 * Asset routes (spec "Assets") plus two of our own for the asset browser:
 * `GET /api/admin/assets/thumbnail?type=&path=` (a cached JPEG) and
 * `GET /api/admin/assets/file?type=&path=` (the file itself, with Range support, so media shows
 * even while the engine is down; the engine's Content-Type rules). Fixed paths are registered before `/:assetType`.
 */
import express from 'express';
import path from 'node:path';
import { contentDisposition } from '../http/content-disposition.js';
import { validate } from '../http/errors.js';
import { DomainError } from '../domain-error.js';
import { sendFileResponse } from '../http/file-response.js';
import { viewContentType } from '../engine/view-file.js';
import type { Uploads } from '../http/uploads.js';
import { parseAssetType, type AssetType } from './asset-types.js';
import type { AssetsService } from './assets.service.js';
import { outputsZipName } from './assets-zip.js';
import { assetFileQuery, deleteAssetsBody } from '../contracts/assets.contract.js';
import { actorOf } from '../http/actor.js';

/** Asset routes. */
export function assetsRoutes(assets: AssetsService, uploads: Uploads): express.Router {
  const router = express.Router();

  router.post('/api/admin/assets/upload-inputs', uploads.array('files', 'inputs'), async (req, res) => {
    const files = Array.isArray(req.files) ? req.files : [];
    res.json(await assets.upload(files, actorOf(res)));
  });

  const sendZip = async (_req: express.Request, res: express.Response) => {
    assets.assertOutputsExist();
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    res.set('Content-Type', 'application/zip');
    res.set('Content-Disposition', `attachment; filename="${outputsZipName()}"`);
    await assets.zipOutputs(res, controller.signal, actorOf(res)).catch((err: unknown) => {
      if (!controller.signal.aborted) throw err;
    });
  };
  router.get('/api/admin/outputs-zip', sendZip);
  router.get('/api/admin/assets/download', sendZip);

  router.post('/api/admin/assets/delete', async (req, res) => {
    const body = validate(deleteAssetsBody, req.body ?? {});
    res.json(await assets.delete(body.type, body.files, actorOf(res)));
  });

  router.get('/api/admin/assets/thumbnail', async (req, res) => {
    const query = validate(assetFileQuery, req.query, 'query');
    const { file, within } = await assets.thumbnail(query.type, query.path, actorOf(res));
    // Revalidated on every view (a cheap 304): a thumbnail kept for an hour outlived its deleted job folder.
    await sendFileResponse(req, res, file, { contentType: 'image/jpeg', cacheControl: 'private, no-cache', within });
  });

  router.get('/api/admin/assets/file', async (req, res) => {
    const query = validate(assetFileQuery, req.query, 'query');
    const { file, within } = assets.filePath(query.type, query.path, actorOf(res));
    await sendFileResponse(req, res, file, { contentType: viewContentType(file), disposition: contentDisposition('inline', path.basename(file)), within });
  });

  router.get('/api/admin/assets/:assetType', (req, res) => {
    const type: AssetType | null = parseAssetType(req.params.assetType);
    if (!type) throw new DomainError('invalid', `Invalid asset type "${String(req.params.assetType)}": use inputs or outputs`);
    res.json(assets.list(type, actorOf(res)));
  });

  return router;
}

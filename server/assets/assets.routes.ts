/**
 * Asset routes (spec "Assets") plus two of our own for the asset browser:
 * `GET /api/admin/assets/thumbnail?type=&path=` (a cached JPEG) and
 * `GET /api/admin/assets/file?type=&path=` (the file itself, with Range support, so media shows
 * even while the engine is down). Fixed paths are registered before `/:assetType`.
 */
import express from 'express';
import { z } from 'zod';
import { HttpError, validate } from '../http/errors.js';
import { memoryUpload } from '../http/uploads.js';
import { parseAssetType, type AssetType } from './asset-types.js';
import type { AssetsService } from './assets.service.js';
import { outputsZipName } from './assets-zip.js';

const deleteBody = z.object({ type: z.enum(['inputs', 'outputs']), files: z.array(z.string()).max(100_000) });
const fileQuery = z.object({ type: z.enum(['inputs', 'outputs']), path: z.string().min(1) });

/** Asset routes. */
export function assetsRoutes(assets: AssetsService): express.Router {
  const router = express.Router();
  const upload = memoryUpload();

  router.post('/api/admin/assets/upload-inputs', upload.array('files', 100), async (req, res) => {
    const files = Array.isArray(req.files) ? req.files : [];
    res.json(await assets.upload(files));
  });

  const sendZip = async (_req: express.Request, res: express.Response) => {
    assets.assertOutputsExist();
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    res.set('Content-Type', 'application/zip');
    res.set('Content-Disposition', `attachment; filename="${outputsZipName()}"`);
    await assets.zipOutputs(res, controller.signal).catch((err: unknown) => {
      if (!controller.signal.aborted) throw err;
    });
  };
  router.get('/api/admin/outputs-zip', sendZip);
  router.get('/api/admin/assets/download', sendZip);

  router.post('/api/admin/assets/delete', async (req, res) => {
    const body = validate(deleteBody, req.body ?? {});
    res.json(await assets.delete(body.type, body.files));
  });

  router.get('/api/admin/assets/thumbnail', async (req, res) => {
    const query = validate(fileQuery, req.query, 'query');
    const file = await assets.thumbnail(query.type, query.path);
    res.set('Cache-Control', 'private, max-age=3600');
    await sendFile(res, file, 'image/jpeg');
  });

  router.get('/api/admin/assets/file', async (req, res) => {
    const query = validate(fileQuery, req.query, 'query');
    await sendFile(res, assets.filePath(query.type, query.path));
  });

  router.get('/api/admin/assets/:assetType', (req, res) => {
    const type: AssetType | null = parseAssetType(req.params.assetType);
    if (!type) throw new HttpError(400, `Invalid asset type "${String(req.params.assetType)}": use inputs or outputs`);
    res.json(assets.list(type));
  });

  return router;
}

/** `res.sendFile` as a promise (it handles Range, Last-Modified and the content type). */
function sendFile(res: express.Response, file: string, type?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    res.sendFile(file, { dotfiles: 'allow', headers: type ? { 'Content-Type': type } : undefined }, (err) => {
      if (err && !res.headersSent) reject(new HttpError(404, 'File not found'));
      else resolve();
    });
  });
}

/**
 * Gallery routes (spec "Gallery", all under `/api/admin/loras/`). Query parameters of the
 * listing: `source` (`original`|`community`), `starred` (`true`|`false`), `limit`, `offset`.
 */
import express from 'express';
import { validate } from '../http/errors.js';
import { sendFileResponse } from '../http/file-response.js';
import { hubId } from './hub-ids.js';
import type { GalleryFile, GalleryService } from './gallery.service.js';
import { galleryFetchBody, galleryListQuery } from '../contracts/modelhub.contract.js';

/** Gallery routes (see the file comment). */
export function galleryRoutes(gallery: GalleryService): express.Router {
  const router = express.Router();
  const send = (req: express.Request, res: express.Response, file: GalleryFile) =>
    sendFileResponse(req, res, file.path, { contentType: file.contentType, within: file.within, cacheControl: 'private, max-age=3600' });

  router.get('/api/admin/loras/gallery/media/:itemId', async (req, res) => {
    await send(req, res, gallery.media(hubId(req.params.itemId, 'item_id')));
  });

  router.get('/api/admin/loras/gallery/thumb/:itemId', async (req, res) => {
    await send(req, res, await gallery.thumb(hubId(req.params.itemId, 'item_id')));
  });

  router.get('/api/admin/loras/gallery/:itemId/meta', (req, res) => {
    res.json(gallery.meta(hubId(req.params.itemId, 'item_id')));
  });

  router.post('/api/admin/loras/gallery/:itemId/star', (req, res) => {
    res.json(gallery.star(hubId(req.params.itemId, 'item_id')));
  });

  router.post('/api/admin/loras/gallery/to-input/:imageId', async (req, res) => {
    res.json(await gallery.toInput(hubId(req.params.imageId, 'image_id')));
  });

  router.post('/api/admin/loras/gallery/download-single/:imageId', async (req, res) => {
    const body = validate(galleryFetchBody, req.body ?? {});
    const fromQuery = typeof req.query.model_id === 'string' ? String(hubId(req.query.model_id, 'model_id')) : undefined;
    res.json(await gallery.downloadSingle(hubId(req.params.imageId, 'image_id'), body.model_id ?? fromQuery ?? null));
  });

  router.get('/api/admin/loras/images/:modelId/previews/:filename', async (req, res) => {
    await send(req, res, gallery.preview(String(hubId(req.params.modelId, 'model_id')), String(req.params.filename)));
  });

  router.post('/api/admin/loras/:modelId/gallery', async (req, res) => {
    res.json(await gallery.start(String(hubId(req.params.modelId, 'model_id'))));
  });

  router.get('/api/admin/loras/:modelId/gallery', (req, res) => {
    const query = validate(galleryListQuery, req.query, 'query');
    res.type('application/json').send(gallery.listJson(String(hubId(req.params.modelId, 'model_id')), query));
  });

  router.delete('/api/admin/loras/:modelId/gallery', async (req, res) => {
    res.json(await gallery.remove(String(hubId(req.params.modelId, 'model_id'))));
  });

  return router;
}

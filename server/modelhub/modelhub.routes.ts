/**
 * Model hub routes (spec "Model hub integration", prefix `/api/admin/modelhub/`): image lookup,
 * catalog add and promote, tag names; and the gallery (spec "Gallery", all under
 * `/api/admin/loras/`). Query parameters of the gallery listing: `source` (`original`|`community`),
 * `starred` (`true`|`false`), `limit`, `offset`.
 */
import express from 'express';
import { galleryFetchBody, galleryListQuery, imagePresetBody } from '../contracts/modelhub.contract.js';
import { validate } from '../http/errors.js';
import { sendFileResponse } from '../http/file-response.js';
import type { CatalogMoves } from './catalog-moves.service.js';
import type { GalleryFile, GalleryService } from './gallery.service.js';
import { hubId } from './hub-ids.js';
import type { ImageLookupService } from './image-lookup.service.js';
import type { ImagePresetService } from './image-preset.service.js';
import type { TagService } from './tags.service.js';

export interface ModelhubRouteDeps {
  lookup: ImageLookupService;
  moves: CatalogMoves;
  tags: TagService;
  imagePresets: ImagePresetService;
  gallery: GalleryService;
}

export function modelhubRoutes({ lookup, moves, tags, imagePresets, gallery }: ModelhubRouteDeps): express.Router {
  const router = express.Router();
  const send = (req: express.Request, res: express.Response, file: GalleryFile) =>
    sendFileResponse(req, res, file.path, { contentType: file.contentType, within: file.within, cacheControl: 'private, max-age=3600' });

  router.get('/api/admin/modelhub/image/:imageId', async (req, res) => {
    res.json(await lookup.lookup(hubId(req.params.imageId, 'image_id')));
  });

  router.post('/api/admin/modelhub/image/:imageId/preset', async (req, res) => {
    res.json(await imagePresets.create(hubId(req.params.imageId, 'image_id'), validate(imagePresetBody, req.body ?? {})));
  });

  router.post('/api/admin/modelhub/add/:versionId', async (req, res) => {
    res.json(await moves.add(hubId(req.params.versionId, 'version_id')));
  });

  router.post('/api/admin/modelhub/promote-to-lora/:versionId', async (req, res) => {
    res.json(await moves.promote(hubId(req.params.versionId, 'version_id')));
  });

  router.post('/api/admin/modelhub/tags/sync', async (_req, res) => {
    res.json(await tags.sync());
  });

  router.get('/api/admin/modelhub/tags', (_req, res) => {
    res.json(tags.list());
  });

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

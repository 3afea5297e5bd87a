/**
 * Model hub routes (spec "Model hub integration", prefix `/api/admin/modelhub/`): image lookup,
 * catalog add and promote, tag names.
 */
import express from 'express';
import { imagePresetBody } from '../contracts/modelhub.contract.js';
import { validate } from '../http/errors.js';
import type { CatalogMoves } from './catalog-moves.service.js';
import { hubId } from './hub-ids.js';
import type { ImageLookupService } from './image-lookup.service.js';
import type { ImagePresetService } from './image-preset.service.js';
import type { TagService } from './tags.service.js';

export interface ModelhubRouteDeps {
  lookup: ImageLookupService;
  moves: CatalogMoves;
  tags: TagService;
  imagePresets: ImagePresetService;
}

/** Model hub routes (see the file comment). */
export function modelhubRoutes({ lookup, moves, tags, imagePresets }: ModelhubRouteDeps): express.Router {
  const router = express.Router();

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

  return router;
}

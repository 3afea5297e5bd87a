/**
 * Model hub routes (spec "Model hub integration", prefix `/api/admin/modelhub/`): image lookup,
 * catalog add and promote, tag names.
 */
import express from 'express';
import { hubId } from './hub-ids.js';
import type { ImageLookupService } from './image-lookup.service.js';

export interface ModelhubRouteDeps {
  lookup: ImageLookupService;
}

/** Model hub routes (see the file comment). */
export function modelhubRoutes({ lookup }: ModelhubRouteDeps): express.Router {
  const router = express.Router();

  router.get('/api/admin/modelhub/image/:imageId', async (req, res) => {
    res.json(await lookup.lookup(hubId(req.params.imageId, 'image_id')));
  });

  return router;
}

/**
 * Saving one hub image into a model's gallery: media file, thumbnail, record. Shared by the
 * background fetch and `gallery/download-single/{image_id}`.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { romeIso } from '../time.js';
import { downloadMedia, sourceFolder, thumbPathOf } from './gallery-files.js';
import type { GalleryThumbs } from './gallery-thumbs.js';
import type { GalleryStore } from './gallery.store.js';
import type { GallerySource } from '../contracts/modelhub.contract.js';
import type { ModelhubImage } from '../modelhub-client/modelhub.schema.js';

export interface GalleryItemsDeps {
  store: GalleryStore;
  thumbs: GalleryThumbs;
  /** `STUDIO_DIR/gallery`. */
  root: string;
}

export class GalleryItems {
  constructor(private readonly deps: GalleryItemsDeps) {}

  /** Save `image` into the gallery of `modelId`; `skipped` when it is there already or has no id. */
  async save(modelId: string, source: GallerySource, image: ModelhubImage, versionId: string | null, signal?: AbortSignal): Promise<'downloaded' | 'skipped'> {
    const id = image.id ?? idFromUrl(image.url);
    if (id === null || this.deps.store.has(modelId, id)) return 'skipped';
    const { root } = this.deps;
    const media = await downloadMedia(root, sourceFolder(modelId, source), id, image.url, image.type, signal);
    const thumb = thumbPathOf(media.file);
    const made = await this.deps.thumbs.make(path.join(root, media.file), path.join(root, thumb), media.mediaType);
    const createdMs = Date.parse(image.createdAt ?? '');
    try {
      this.deps.store.put({
        model_id: modelId,
        id,
        source,
        media_type: media.mediaType,
        content_type: media.contentType,
        file: media.file,
        thumb: made ? thumb : null,
        bytes: media.bytes,
        width: image.width ?? null,
        height: image.height ?? null,
        version_id: versionId ?? (image.modelVersionIds?.[0] !== undefined ? String(image.modelVersionIds[0]) : null),
        username: image.username ?? null,
        created_at: image.createdAt ?? null,
        created_ms: Number.isNaN(createdMs) ? Date.now() : createdMs,
        starred: 0,
        item: JSON.stringify(image),
        fetched_at: romeIso(),
      });
    } catch (err) {
      // No record, no files: a later fetch tries the image again from scratch.
      await Promise.all([fsp.rm(path.join(root, media.file), { force: true }), fsp.rm(path.join(root, thumb), { force: true })]);
      throw err;
    }
    return 'downloaded';
  }
}

/** The hub names media files after the image id (`…/width=450/12345.jpeg`); null when it does not. */
function idFromUrl(url: string): number | null {
  const match = /\/(\d+)\.[A-Za-z0-9]+(?:\?.*)?$/.exec(url);
  return match ? Number(match[1]) : null;
}

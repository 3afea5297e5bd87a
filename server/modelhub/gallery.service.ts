/**
 * The gallery's read and write side for the routes (spec "Gallery", prefix `/api/admin/loras/`):
 * listing with filters and the fetch progress, deleting a model's gallery, media and thumbnail
 * files, metadata, stars, copying an image into the engine's inputs and fetching one image.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { DomainError } from '../domain-error.js';
import { contentTypeOf, mediaKindOf } from '../media-types.js';
import type { UploadedFile } from '../http/uploads.js';
import type { GalleryFetcher } from './gallery-fetch.service.js';
import type { GalleryItems } from './gallery-items.js';
import type { GalleryThumbs } from './gallery-thumbs.js';
import type { GalleryFilter, GalleryStore } from './gallery.store.js';
import type { FetchRow } from '../contracts/modelhub.contract.js';
import type { ModelhubClient } from '../modelhub-client/modelhub.client.js';
import { viaHub } from './modelhub-errors.js';

/** A file to send, with its type and the folder it must stay inside. */
export interface GalleryFile {
  path: string;
  contentType: string;
  within: string;
}

export interface GalleryServiceDeps {
  store: GalleryStore;
  fetcher: GalleryFetcher;
  items: GalleryItems;
  thumbs: GalleryThumbs;
  client: ModelhubClient;
  /** `STUDIO_DIR/gallery`. */
  root: string;
  /** Store an image in the engine's input folder (the runner's upload); returns its name there. */
  toInput: (file: UploadedFile) => Promise<string>;
}

export class GalleryService {
  constructor(private readonly deps: GalleryServiceDeps) {}

  /** `POST {model_id}/gallery`: checks the model exists on the hub, then fetches in the background. */
  async start(modelId: string): Promise<{ status: 'started' | 'already_running'; model_id: string; fetch: FetchRow }> {
    await viaHub(() => this.deps.client.getModel(modelId));
    const { status, fetch } = this.deps.fetcher.request(modelId);
    return { status, model_id: modelId, fetch };
  }

  /**
   * `GET {model_id}/gallery`: `{model_id, total, items, fetch}` as JSON text, items newest first
   * (shaped like `GalleryItemView`), `fetch` the progress (null when never fetched).
   */
  listJson(modelId: string, filter: GalleryFilter): string {
    const { json, total } = this.deps.store.listJson(modelId, filter);
    const fetch = JSON.stringify(this.deps.store.fetch(modelId));
    return `{"model_id":${JSON.stringify(modelId)},"total":${total},"items":${json},"fetch":${fetch}}`;
  }

  /** `DELETE {model_id}/gallery`: stops its fetch, removes records and files. */
  async remove(modelId: string): Promise<{ status: 'deleted'; model_id: string; deleted: number }> {
    await this.deps.fetcher.cancel(modelId);
    const deleted = this.deps.store.deleteModel(modelId);
    await fsp.rm(path.join(this.deps.root, modelId), { recursive: true, force: true });
    return { status: 'deleted', model_id: modelId, deleted };
  }

  /** `gallery/media/{id}`. */
  media(id: number): GalleryFile {
    const row = this.row(id);
    return { path: path.join(this.deps.root, row.file), contentType: row.content_type, within: this.deps.root };
  }

  /** `gallery/thumb/{id}`: the thumbnail; else an image's own file, a video's placeholder. */
  async thumb(id: number): Promise<GalleryFile> {
    const row = this.row(id);
    if (row.thumb) return { path: path.join(this.deps.root, row.thumb), contentType: 'image/jpeg', within: this.deps.root };
    if (row.media_type === 'image') return this.media(id);
    return { path: await this.deps.thumbs.placeholder(this.deps.root), contentType: 'image/jpeg', within: this.deps.root };
  }

  /** `gallery/{id}/meta`: the hub's item as stored (with its generation `meta`). */
  meta(id: number): unknown {
    return JSON.parse(this.row(id).item) as unknown;
  }

  /** `gallery/{id}/star`: toggle; the new state. */
  star(id: number): { id: number; starred: boolean } {
    const starred = this.deps.store.toggleStar(id);
    if (starred === null) throw new DomainError('not_found', `Gallery item ${id} not found`);
    return { id, starred };
  }

  /** `gallery/to-input/{id}`: the image copied into the engine's inputs. */
  async toInput(id: number): Promise<{ filename: string }> {
    const row = this.row(id);
    if (row.media_type !== 'image') throw new DomainError('invalid', `Gallery item ${id} is a video; only images can be used as an input image`);
    const file = path.join(this.deps.root, row.file);
    const stat = await fsp.stat(file).catch(() => null);
    if (!stat) throw new DomainError('not_found', `The media file of gallery item ${id} is missing`);
    const filename = await this.deps.toInput({ path: file, originalname: `gallery_${id}${path.extname(row.file)}`, size: stat.size });
    return { filename };
  }

  /**
   * `gallery/download-single/{id}`: one hub image into a gallery. The model is `modelId` when
   * given, else the model of the image's first version (asked of the hub).
   */
  async downloadSingle(id: number, modelId: string | null): Promise<{ status: 'downloaded'; civitai_id: string; model_id: string; new: boolean }> {
    const image = await viaHub(() => this.deps.client.getImage(id));
    let model = modelId;
    if (model === null) {
      const versionId = image.modelVersionIds?.[0];
      if (versionId === undefined) throw new DomainError('invalid', `Image ${id} names no model version; say which gallery with model_id`);
      const version = await viaHub(() => this.deps.client.getModelVersion(String(versionId)));
      if (version.modelId === undefined) throw new DomainError('bad_gateway', `The model hub did not say which model version ${versionId} belongs to`);
      model = version.modelId;
    }
    let outcome: 'downloaded' | 'skipped';
    try {
      outcome = await this.deps.items.save(model, 'community', image, null);
    } catch (err) {
      throw new DomainError('bad_gateway', `Image ${id} could not be downloaded: ${(err as Error).message}`);
    }
    return { status: 'downloaded', civitai_id: String(id), model_id: model, new: outcome === 'downloaded' };
  }

  /** `images/{model_id}/previews/{filename}`: a file of the model's previews folder. */
  preview(modelId: string, filename: string): GalleryFile {
    if (!/^[A-Za-z0-9_.-]+$/.test(filename) || filename.startsWith('.')) throw new DomainError('invalid', 'filename must be a plain file name');
    // Only media: a preview folder's other files (a .json beside them) are not served.
    if (!mediaKindOf(filename) && path.extname(filename).toLowerCase() !== '.avif') throw new DomainError('not_found', `No preview ${filename}`);
    const within = path.join(this.deps.root, modelId, 'previews');
    return { path: path.join(within, filename), contentType: contentTypeOf(filename), within };
  }

  private row(id: number): NonNullable<ReturnType<GalleryStore['byId']>> {
    const row = this.deps.store.byId(id);
    if (!row) throw new DomainError('not_found', `Gallery item ${id} not found`);
    return row;
  }
}


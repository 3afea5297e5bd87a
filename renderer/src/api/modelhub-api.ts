/**
 * Model hub lookups (spec "Model hub integration" and the gallery's single-image routes): an
 * image's generation data, adding a version to the catalog, a preset from an image, and copying
 * the image into the engine's inputs through the local gallery.
 */
import type { DetectedDep, ImageLookup, ImagePresetResult, ImageResource } from '../../../server/contracts/modelhub.contract.js';
import type { Http } from './http.js';

export type { DetectedDep, ImageLookup, ImageResource };

/** `add/{version_id}`: `added` with the entry, `restricted` with the creator's reason (the already-catalogued body is not in the spec). */
export interface AddResult {
  status: string;
  file?: string;
  name?: string;
  category?: string;
  dest?: string;
  reason?: string;
  /** `exists`: which catalog holds it. */
  catalog?: 'models' | 'loras';
}

/** `promote-to-lora/{version_id}`: the entry now in `loras.json`. */
export interface PromoteResult {
  status: 'promoted' | 'already_in_loras';
  file: string;
  name: string;
  category: string;
  dest: string;
}

export class ModelhubApi {
  constructor(private readonly http: Http) {}

  image(id: number): Promise<ImageLookup> {
    return this.http.get(`/api/admin/modelhub/image/${id}`);
  }
  add(versionId: string): Promise<AddResult> {
    return this.http.post(`/api/admin/modelhub/add/${encodeURIComponent(versionId)}`);
  }
  promote(versionId: string): Promise<PromoteResult> {
    return this.http.post(`/api/admin/modelhub/promote-to-lora/${encodeURIComponent(versionId)}`);
  }
  preset(imageId: number): Promise<ImagePresetResult> {
    return this.http.post(`/api/admin/modelhub/image/${imageId}/preset`, {});
  }
  fetchImage(imageId: number): Promise<{ status: string; civitai_id: string }> {
    return this.http.post(`/api/admin/loras/gallery/download-single/${imageId}`, {});
  }
  toInput(imageId: number): Promise<{ filename: string }> {
    return this.http.post(`/api/admin/loras/gallery/to-input/${imageId}`);
  }
  mediaUrl(itemId: number): string {
    return this.http.url(`/api/admin/loras/gallery/media/${itemId}`);
  }
}

/** An image id from what a user pastes: `12345`, or a hub URL such as `https://…/images/12345`. */
export function parseImageId(text: string): number | null {
  const trimmed = text.trim();
  const match = /^(\d+)$/.exec(trimmed) ?? /\/images\/(\d+)/.exec(trimmed);
  const id = match ? Number(match[1]) : NaN;
  return Number.isSafeInteger(id) && id > 0 ? id : null;
}

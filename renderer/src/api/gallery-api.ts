/**
 * A model's gallery (spec "Gallery", prefix `/api/admin/loras/`): list with filters, fetch from
 * the hub, star, metadata, use as input, delete all.
 */
import type { FetchRow, GalleryItemView } from '../../../server/contracts/modelhub.contract.js';
import type { Http } from './http.js';

export type { FetchRow, GalleryItemView };

export interface GalleryListing {
  model_id: string;
  total: number;
  items: GalleryItemView[];
  fetch: FetchRow | null;
}

export interface GalleryFilter {
  source?: 'original' | 'community';
  starred?: boolean;
}

const base = (modelId: string): string => `/api/admin/loras/${encodeURIComponent(modelId)}/gallery`;

export class GalleryApi {
  constructor(private readonly http: Http) {}

  list(modelId: string, filter: GalleryFilter): Promise<GalleryListing> {
    return this.http.get(base(modelId), { source: filter.source, starred: filter.starred ? 'true' : undefined });
  }
  fetchMore(modelId: string): Promise<{ status: string; fetch: FetchRow }> {
    return this.http.post(base(modelId));
  }
  removeAll(modelId: string): Promise<{ status: string; deleted: number }> {
    return this.http.delete(base(modelId));
  }
  star(itemId: number): Promise<{ starred: boolean }> {
    return this.http.post(`/api/admin/loras/gallery/${itemId}/star`);
  }
  meta(itemId: number): Promise<Record<string, unknown>> {
    return this.http.get(`/api/admin/loras/gallery/${itemId}/meta`);
  }
  toInput(itemId: number): Promise<{ filename: string }> {
    return this.http.post(`/api/admin/loras/gallery/to-input/${itemId}`);
  }
  /** A server path from the listing (`media_url`, `thumb_url`) as a URL. */
  url(path: string): string {
    return this.http.url(path);
  }
}

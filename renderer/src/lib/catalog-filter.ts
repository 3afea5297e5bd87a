/**
 * The models page's search and filters, as plain data (tested without a browser).
 */
import type { CatalogModel, CatalogResponse, DownloadStatus } from '../api/types.js';

export type PresenceFilter = '' | 'present' | 'missing' | 'active' | 'error';

export interface CatalogFilter {
  text: string;
  category: string;
  baseModel: string;
  presence: PresenceFilter;
}

export interface ListedModel extends CatalogModel {
  category: string;
  categoryName: string;
}

/** Every entry of a catalog with its category, in catalog order. */
export function flattenCatalog(catalog: CatalogResponse | null): ListedModel[] {
  return (catalog?.categories ?? []).flatMap((c) => c.models.map((m) => ({ ...m, category: c.id, categoryName: c.name || c.id })));
}

/** Base models named in a catalog, sorted. */
export function baseModels(models: readonly CatalogModel[]): string[] {
  return [...new Set(models.map((m) => m.base_model).filter((b): b is string => !!b))].sort((a, b) => a.localeCompare(b));
}

function presenceOf(model: CatalogModel, download: DownloadStatus | undefined): PresenceFilter {
  if (download?.status === 'queued' || download?.status === 'downloading' || model.status === 'queued' || model.status === 'downloading') return 'active';
  if (download?.status === 'error' || model.status === 'error') return 'error';
  return model.status === 'present' ? 'present' : 'missing';
}

/** The entries that pass the search text (name, file, base model, tags) and the filters. */
export function filterModels(models: readonly ListedModel[], filter: CatalogFilter, downloads: Record<string, DownloadStatus> = {}): ListedModel[] {
  const words = filter.text.toLowerCase().split(/\s+/).filter(Boolean);
  return models.filter((m) => {
    if (filter.category && m.category !== filter.category) return false;
    if (filter.baseModel && m.base_model !== filter.baseModel) return false;
    if (filter.presence) {
      const p = presenceOf(m, downloads[m.file]);
      // "missing" means not on disk, which includes failed and waiting downloads.
      if (filter.presence === 'missing' ? p === 'present' : p !== filter.presence) return false;
    }
    if (!words.length) return true;
    const hay = [m.name, m.file, m.base_model ?? '', m.dest, ...(m.tags ?? [])].join(' ').toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}

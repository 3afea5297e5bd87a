/**
 * The model-hub map over both catalogs (spec: GET /api/admin/models/civitai-map): which hub
 * versions and models Studio already knows, so the renderer can mark hub search results.
 */
import type { CatalogEntry, CatalogFile } from '../contracts/catalog.contract.js';

/** Which catalog an entry of the map came from. */
export type MapCatalog = 'models' | 'loras';

/** One hub version known to a catalog. */
export interface ModelhubVersionInfo {
  file: string;
  dest: string;
  name: string;
  base_model: string | null;
  status: 'present' | 'missing';
  modelhub_model_id: string | null;
  catalog: MapCatalog;
}

/** `by_version`: version id -> entry info; `by_model`: model id -> its catalogued version ids. */
export interface ModelhubMap {
  by_version: Record<string, ModelhubVersionInfo>;
  by_model: Record<string, string[]>;
}

/**
 * Build the map. Entries without `modelhub_version_id` are skipped. If one version sits in both
 * catalogs (a promote interrupted half-way) the `loras` entry wins, because promote writes
 * `loras.json` first and that is where the entry is headed.
 */
export function buildModelhubMap(
  models: CatalogFile,
  loras: CatalogFile,
  isPresent: (entry: CatalogEntry, catalog: MapCatalog) => boolean,
): ModelhubMap {
  const byVersion: Record<string, ModelhubVersionInfo> = {};
  const byModel = new Map<string, Set<string>>();
  const add = (catalog: CatalogFile, kind: MapCatalog) => {
    for (const category of catalog.categories) {
      for (const entry of category.models) {
        const versionId = entry.modelhub_version_id;
        if (versionId === undefined) continue;
        byVersion[versionId] = {
          file: entry.file,
          dest: entry.dest,
          name: entry.name,
          base_model: entry.base_model ?? null,
          status: isPresent(entry, kind) ? 'present' : 'missing',
          modelhub_model_id: entry.modelhub_model_id ?? null,
          catalog: kind,
        };
        if (entry.modelhub_model_id !== undefined) {
          const versions = byModel.get(entry.modelhub_model_id) ?? new Set<string>();
          versions.add(versionId);
          byModel.set(entry.modelhub_model_id, versions);
        }
      }
    }
  };
  add(models, 'models');
  add(loras, 'loras');
  const by_model: Record<string, string[]> = {};
  for (const [modelId, versions] of byModel) by_model[modelId] = [...versions];
  return { by_version: byVersion, by_model };
}

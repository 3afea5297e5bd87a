/**
 * The three catalog stores side by side, and lookups across them. Model and LoRA files share
 * the download and delete endpoints (`/api/admin/models/...`), so most lookups try both.
 */
import type { CatalogCategory, CatalogEntry, CatalogFile, CatalogKind } from '../contracts/catalog.contract.js';
import type { CatalogStore } from './catalog.store.js';

/** The catalog stores Studio keeps. */
export interface CatalogSet {
  models: CatalogStore;
  loras: CatalogStore;
  llm: CatalogStore;
}

/** An entry found in a catalog. */
export interface CatalogHit {
  kind: CatalogKind;
  entry: CatalogEntry;
  category: CatalogCategory;
}

/** Kinds searched by the model endpoints (LoRAs download and delete through them too). */
export const MODEL_KINDS: readonly CatalogKind[] = ['models', 'loras'];

/** The first catalog of `kinds` holding `file`; a catalog that failed to load is skipped. */
export function findEntry(set: CatalogSet, file: string, kinds: readonly CatalogKind[] = MODEL_KINDS): CatalogHit | null {
  for (const kind of kinds) {
    const store = set[kind];
    if (!store.isLoaded()) continue;
    const hit = store.findEntry(file);
    if (hit) return { kind, ...hit };
  }
  return null;
}

/** The loaded catalog of `kind`, or an empty one when it could not be loaded. */
export function catalogOrEmpty(set: CatalogSet, kind: CatalogKind): CatalogFile {
  const store = set[kind];
  return store.isLoaded() ? store.get() : { version: 0, date: '', categories: [] };
}

/**
 * The three catalog stores side by side, and lookups across them. Model and LoRA files share
 * the download and delete endpoints (`/api/admin/models/...`), so most lookups try both.
 */
import { DomainError } from '../domain-error.js';
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

/** The first model or LoRA entry recording `sha256` (compared in lowercase); catalogs that failed to load are skipped. */
export function findBySha256(set: CatalogSet, sha256: string): CatalogEntry | null {
  const wanted = sha256.toLowerCase();
  for (const kind of MODEL_KINDS) {
    if (!set[kind].isLoaded()) continue;
    for (const category of set[kind].get().categories) {
      const entry = category.models.find((e) => e.sha256?.toLowerCase() === wanted);
      if (entry) return entry;
    }
  }
  return null;
}

/** The loaded catalog of `kind`, or an empty one when it could not be loaded. */
export function catalogOrEmpty(set: CatalogSet, kind: CatalogKind): CatalogFile {
  const store = set[kind];
  return store.isLoaded() ? store.get() : { version: 0, date: '', categories: [] };
}

/** A catalog of `kind` that cannot be read, and why (the message names the file). */
export interface UnreadableCatalog {
  kind: CatalogKind;
  reason: string;
}

/**
 * Load again each catalog of `kinds` whose load failed (the user may have fixed the file since);
 * the ones that still cannot be read.
 */
export async function reloadFailed(set: CatalogSet, kinds: readonly CatalogKind[] = MODEL_KINDS): Promise<UnreadableCatalog[]> {
  const unreadable: UnreadableCatalog[] = [];
  for (const kind of kinds) {
    if (set[kind].isLoaded()) continue;
    await set[kind].load().catch((err: unknown) => unreadable.push({ kind, reason: (err as Error).message }));
  }
  return unreadable;
}

/** The 500 for a request that needs catalogs which cannot be read: what is wrong with which file, and the fix. */
export function catalogUnreadable(unreadable: readonly UnreadableCatalog[]): DomainError {
  const what = unreadable.map((u) => `the ${u.kind} catalog cannot be read (${u.reason})`).join('; ');
  return new DomainError(
    'broken',
    `${what[0]!.toUpperCase()}${what.slice(1)}. Correct the file, or move it away and restart Studio to start again from the shipped catalog.`,
  );
}

/**
 * `findEntry` for requests: catalogs whose load failed are read again first, and when `file` is
 * in none of the readable ones while another cannot be read, the answer says so (a 500 naming
 * the broken file) instead of "not in the catalog".
 */
export async function lookupEntry(set: CatalogSet, file: string, kinds: readonly CatalogKind[] = MODEL_KINDS): Promise<CatalogHit | null> {
  const unreadable = await reloadFailed(set, kinds);
  const hit = findEntry(set, file, kinds);
  if (!hit && unreadable.length > 0) throw catalogUnreadable(unreadable);
  return hit;
}

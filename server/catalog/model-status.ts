/**
 * Live status of catalog entries. Nothing about presence is stored in the catalogs: a file is
 * `present` when it sits complete at its final path (a `.part` next to it does not count), and
 * the download queue's state, when there is one, wins over what is on disk. A file far smaller
 * than the catalog says is `incomplete` (a cut-off copy, an error page saved under the model's
 * name): on disk, but not ready, and downloaded again on request.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { QueueState } from '../downloads/index.js';
import type { CatalogEntry, CatalogFile, CatalogKind, CatalogModel, ModelStatus } from '../contracts/catalog.contract.js';

/** Where files land: `models` holds `<dest>/<file>`, `llmModels` holds LLM `<file>` directly. */
export interface ModelDirs {
  models: string;
  llmModels: string;
}

/** Tells whether an entry's file is on disk (complete or not), and how big it is (0 when absent). */
export interface FilePresence {
  /** On disk and not short of the catalog's size: usable. */
  isPresent(entry: CatalogEntry, kind: CatalogKind): boolean;
  /** Anything at the final path, complete or not. */
  isOnDisk(entry: CatalogEntry, kind: CatalogKind): boolean;
  bytesOnDisk(entry: CatalogEntry, kind: CatalogKind): number;
}

/**
 * Below this share of the catalog's size a file is short. `size_gb` is rounded (two or three
 * decimals), so a complete file may differ a little either way; a cut-off one is far below.
 */
const COMPLETE_SHARE = 0.9;

/** True when `bytes` is well short of the catalog's `size_gb` (an unknown size, 0, never is). */
export function isShortOfCatalog(bytes: number, entry: Pick<CatalogEntry, 'size_gb'>): boolean {
  return entry.size_gb > 0 && bytes < entry.size_gb * 1e9 * COMPLETE_SHARE;
}

/** A catalog entry as the API returns it: stored fields plus the live ones. */
export type EntryWithStatus = CatalogModel;

/** Absolute final path of an entry's file (models under `<dest>/`, LLM models flat). */
export function entryFilePath(dirs: ModelDirs, entry: CatalogEntry, kind: CatalogKind): string {
  if (kind === 'llm' || entry.dest === '.') return path.join(kind === 'llm' ? dirs.llmModels : dirs.models, entry.file);
  return path.join(dirs.models, ...entry.dest.split('/'), entry.file);
}

/** Presence backed by `fs.statSync` on each entry's final path (a catalog is ~100 stats). */
export function diskPresence(dirs: ModelDirs): FilePresence {
  const size = (entry: CatalogEntry, kind: CatalogKind): number => {
    try {
      const stat = fs.statSync(entryFilePath(dirs, entry, kind));
      return stat.isFile() ? stat.size : -1;
    } catch {
      return -1;
    }
  };
  return {
    isPresent: (entry, kind) => {
      const bytes = size(entry, kind);
      return bytes >= 0 && !isShortOfCatalog(bytes, entry);
    },
    isOnDisk: (entry, kind) => size(entry, kind) >= 0,
    bytesOnDisk: (entry, kind) => Math.max(0, size(entry, kind)),
  };
}

/** `present` / `incomplete` / `not_downloaded`, overridden by a queue state when the file is being fetched. */
export function resolveStatus(present: boolean, queue?: QueueState | null, short = false): ModelStatus {
  if (queue === 'queued' || queue === 'downloading') return queue;
  if (present) return 'present';
  if (short) return 'incomplete';
  return queue === 'error' ? 'error' : 'not_downloaded';
}

/** A copy of `catalog` whose entries carry `status` and `on_disk_bytes`. */
export function withLiveStatus(
  catalog: CatalogFile,
  kind: CatalogKind,
  presence: FilePresence,
  queueState: (file: string) => QueueState | null = () => null,
): Omit<CatalogFile, 'categories'> & { categories: Array<{ id: string; name: string; models: EntryWithStatus[] }> } {
  return {
    ...catalog,
    categories: catalog.categories.map((category) => ({
      ...category,
      models: category.models.map((entry) => {
        const onDisk = presence.isOnDisk(entry, kind);
        const present = onDisk && presence.isPresent(entry, kind);
        const bytes = onDisk ? presence.bytesOnDisk(entry, kind) : 0;
        return { ...entry, status: resolveStatus(present, queueState(entry.file), onDisk && !present), on_disk_bytes: bytes };
      }),
    })),
  };
}

/** `{total, present}` over a catalog (the LLM catalog's `summary`). */
export function presenceSummary(catalog: CatalogFile, kind: CatalogKind, presence: FilePresence): { total: number; present: number } {
  const entries = catalog.categories.flatMap((category) => category.models);
  return { total: entries.length, present: entries.filter((entry) => presence.isPresent(entry, kind)).length };
}

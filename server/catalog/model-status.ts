/**
 * Live status of catalog entries. Nothing about presence is stored in the catalogs: a file is
 * `present` when it sits complete at its final path (a `.part` next to it does not count), and
 * the download queue's state, when there is one, wins over what is on disk.
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

/** Tells whether an entry's file is on disk, and how big it is (0 when absent). */
export interface FilePresence {
  isPresent(entry: CatalogEntry, kind: CatalogKind): boolean;
  bytesOnDisk(entry: CatalogEntry, kind: CatalogKind): number;
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
    isPresent: (entry, kind) => size(entry, kind) >= 0,
    bytesOnDisk: (entry, kind) => Math.max(0, size(entry, kind)),
  };
}

/** `present` / `not_downloaded`, overridden by a queue state when the file is being fetched. */
export function resolveStatus(present: boolean, queue?: QueueState | null): ModelStatus {
  if (queue === 'queued' || queue === 'downloading') return queue;
  if (present) return 'present';
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
        const present = presence.isPresent(entry, kind);
        const bytes = present ? presence.bytesOnDisk(entry, kind) : 0;
        return { ...entry, status: resolveStatus(present, queueState(entry.file)), on_disk_bytes: bytes };
      }),
    })),
  };
}

/** `{total, present}` over a catalog (the LLM catalog's `summary`). */
export function presenceSummary(catalog: CatalogFile, kind: CatalogKind, presence: FilePresence): { total: number; present: number } {
  const entries = catalog.categories.flatMap((category) => category.models);
  return { total: entries.length, present: entries.filter((entry) => presence.isPresent(entry, kind)).length };
}

/**
 * How catalog entries meet the download queue: the job queued for an entry (its final path and
 * size estimate), and the resolver the queue calls when a file starts, which finds the entry
 * again (it may have been removed meanwhile) and says where its file comes from.
 */
import type { DownloadJob, DownloadKind, DownloadResolver } from '../downloads/index.js';
import { findEntry, type CatalogSet } from './catalog-set.js';
import type { CatalogEntry, CatalogKind } from '../contracts/catalog.contract.js';
import { entryFilePath, type ModelDirs } from './model-status.js';
import { resolveSourceUrl, type SourceConfig } from './source-urls.js';

/** The queue job of an entry of catalog `kind`. */
export function downloadJobOf(dirs: ModelDirs, kind: CatalogKind, entry: CatalogEntry): DownloadJob {
  return { file: entry.file, kind, finalFile: entryFilePath(dirs, entry, kind), estimatedBytes: estimateBytes(entry) };
}

export interface ResolverDeps {
  catalogs: CatalogSet;
  dirs: ModelDirs;
  /** Base URLs and the current tokens (read per download: tokens are editable at runtime). */
  sources: () => SourceConfig;
}

/** The queue's resolver over the catalogs; its errors become the row's `not_found` message. */
export function catalogDownloadResolver({ catalogs, dirs, sources }: ResolverDeps): DownloadResolver {
  return (file: string, kind: DownloadKind) => {
    const hit = findEntry(catalogs, file, [kind]);
    if (!hit) throw new Error(`${file} is no longer in the ${kind} catalog`);
    let source;
    try {
      source = resolveSourceUrl(hit.entry, sources());
    } catch (err) {
      throw new Error(`The catalog entry does not say where to download it from: ${(err as Error).message}`, { cause: err });
    }
    return {
      ...source,
      finalFile: entryFilePath(dirs, hit.entry, kind),
      expectedSha256: hit.entry.sha256 ?? null,
      estimatedBytes: estimateBytes(hit.entry),
    };
  };
}

/** The catalog's size in bytes (`size_gb` is decimal GB), or null when unknown. */
function estimateBytes(entry: CatalogEntry): number | null {
  return entry.size_gb > 0 ? Math.round(entry.size_gb * 1e9) : null;
}

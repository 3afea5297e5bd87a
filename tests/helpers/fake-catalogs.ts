/**
 * Small catalogs written into a data directory before Studio boots (seeding never overwrites
 * them), so download tests point entries at local fake servers instead of the real hosts.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { CatalogEntry, CatalogFile } from '../../server/contracts/catalog.contract.js';

/** A repohost model entry (`owner/repo`, dest `checkpoints`) with the given overrides. */
export function repoEntry(file: string, over: Partial<CatalogEntry> = {}): CatalogEntry {
  return { name: file, file, dest: 'checkpoints', size_gb: 0.001, tags: [], source: 'repohost', hosted_repo: 'owner/repo', ...over };
}

/** A modelhub entry (version id `versionId`) with the given overrides. */
export function hubEntry(file: string, versionId: string, over: Partial<CatalogEntry> = {}): CatalogEntry {
  return { name: file, file, dest: 'loras', size_gb: 0.001, tags: [], source: 'modelhub', modelhub_version_id: versionId, ...over };
}

/** A catalog with one category holding `entries`. */
export function catalogOf(entries: CatalogEntry[], categoryId = 'checkpoints', version = 1): CatalogFile {
  return { version, date: '2026-01-01 00:00', categories: [{ id: categoryId, name: categoryId, models: entries }] };
}

/** Write any of the three catalogs into `<dir>/catalogs/`. */
export function writeCatalogs(dir: string, catalogs: { models?: CatalogFile; loras?: CatalogFile; llm?: CatalogFile }): void {
  const target = path.join(dir, 'catalogs');
  fs.mkdirSync(target, { recursive: true });
  if (catalogs.models) fs.writeFileSync(path.join(target, 'models.json'), JSON.stringify(catalogs.models, null, 2));
  if (catalogs.loras) fs.writeFileSync(path.join(target, 'loras.json'), JSON.stringify(catalogs.loras, null, 2));
  if (catalogs.llm) fs.writeFileSync(path.join(target, 'llm_models.json'), JSON.stringify(catalogs.llm, null, 2));
}

/** Hex SHA-256 of a buffer or a file on disk. */
export function sha256(data: Buffer | string): string {
  return createHash('sha256')
    .update(typeof data === 'string' ? fs.readFileSync(data) : data)
    .digest('hex');
}

/** Poll `check` until it returns a value other than undefined/false, or fail after `timeoutMs`. */
export async function waitFor<T>(check: () => Promise<T | undefined | false> | T | undefined | false, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

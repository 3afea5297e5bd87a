/**
 * Where a catalog entry is downloaded from. The token goes in an `Authorization: Bearer` header
 * (never in the query string, where it would leak into logs); `downloadFile` sends it to the
 * origin host only, so the signed CDN URL the hub redirects to never sees it. The URL is always
 * the hub's own download URL, never a signed one: those expire, so every attempt and every
 * resume asks the hub again.
 */
import type { CatalogEntry } from '../contracts/catalog.contract.js';

/** The part of the config a source URL needs (base URLs without a trailing slash). */
export interface SourceConfig {
  modelhubBaseUrl: string;
  repohostBaseUrl: string;
  modelhubApiKey: string | null;
  hubToken: string | null;
}

/** What to fetch for an entry. */
export interface ResolvedSource {
  url: string;
  /** Auth headers for the origin host only. */
  headers: Record<string, string>;
  source: 'modelhub' | 'repohost';
  /** The setting that holds this source's token, for error messages. */
  tokenName: 'MODELHUB_API_KEY' | 'HUB_TOKEN';
}

/** An entry that does not say where its file comes from. */
export class SourceUrlError extends Error {}

/** The download URL and origin headers of a catalog entry. */
export function resolveSourceUrl(entry: CatalogEntry, config: SourceConfig): ResolvedSource {
  if (entry.source === 'modelhub') {
    if (!entry.modelhub_version_id) throw new SourceUrlError(`${entry.file}: modelhub entry without modelhub_version_id`);
    // Without `fileId` the hub serves the version's primary file; the per-file form is the one
    // the hub answers reliably (its type/format/fp query form has been seen to 404).
    const fileId = entry.modelhub_file_id ? `?fileId=${encodeURIComponent(entry.modelhub_file_id)}` : '';
    const url = `${trimSlash(config.modelhubBaseUrl)}/api/download/models/${encodeURIComponent(entry.modelhub_version_id)}${fileId}`;
    return { url, headers: bearer(config.modelhubApiKey), source: 'modelhub', tokenName: 'MODELHUB_API_KEY' };
  }
  if (!entry.hosted_repo) throw new SourceUrlError(`${entry.file}: repohost entry without hosted_repo`);
  const repo = entry.hosted_repo.split('/').map(encodeURIComponent).join('/');
  const filePath = (entry.repo_path ?? entry.file).split('/').map(encodeURIComponent).join('/');
  const url = `${trimSlash(config.repohostBaseUrl)}/${repo}/resolve/main/${filePath}`;
  return { url, headers: bearer(config.hubToken), source: 'repohost', tokenName: 'HUB_TOKEN' };
}

function bearer(token: string | null): Record<string, string> {
  return token ? { Authorization: `Bearer ${token}` } : {};
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/**
 * Where a node package named by an imported file may be installed from. A shared workflow ZIP's
 * manifest (`node_sources`) may map a well-known package name to any repository; so a name the
 * curated or community node map knows is installed only from the map's URL, and a URL that comes
 * only from a file is shown as it is, with its host and owner, marked as the file's, and asked
 * about before anything is fetched (the install route refuses it for a known name unless confirmed).
 */
import type { NodeSourceCheck } from '../../contracts/workflows.contract.js';

/** Package name (lower case) → the install URLs the node maps give it, the preferred (curated) first. */
export type KnownSources = ReadonlyMap<string, readonly string[]>;

/** The host and owner of a repository URL (`github.com`, `ltdrdata`); empty strings when unreadable. */
export function repositoryOf(url: string): { host: string; owner: string } {
  try {
    const parsed = new URL(url);
    return { host: parsed.host.toLowerCase(), owner: parsed.pathname.split('/').filter(Boolean)[0] ?? '' };
  } catch {
    return { host: '', owner: '' };
  }
}

/** The same repository: scheme, host and path compared without case, a trailing `/` or `.git`. */
function sameRepository(a: string, b: string): boolean {
  const norm = (url: string) => url.trim().toLowerCase().replace(/\/+$/, '').replace(/\.git$/, '').replace(/\/+$/, '');
  return norm(a) === norm(b);
}

/** The map's URL for `name` when the maps know the package and `url` is not one of theirs. */
export function mapSourceInstead(name: string, url: string, known: KnownSources): string | null {
  const urls = known.get(name.toLowerCase());
  if (!urls || urls.length === 0) return null;
  return urls.some((candidate) => sameRepository(candidate, url)) ? null : urls[0]!;
}

/** Each package an imported file names a source for → where it would be installed from, and why. */
export function checkNodeSources(fileSources: Readonly<Record<string, string>>, known: KnownSources): Record<string, NodeSourceCheck> {
  const checks: Record<string, NodeSourceCheck> = {};
  for (const [name, fileUrl] of Object.entries(fileSources)) {
    const urls = known.get(name.toLowerCase());
    const preferred = urls?.[0];
    if (preferred === undefined) {
      checks[name] = { url: fileUrl, ...repositoryOf(fileUrl), from: 'file', confirm: true };
      continue;
    }
    const matching = urls!.find((candidate) => sameRepository(candidate, fileUrl));
    const url = matching ?? preferred;
    checks[name] = { url, ...repositoryOf(url), from: 'node_map', confirm: false, ...(matching ? {} : { file_url: fileUrl, file_differs: true }) };
  }
  return checks;
}

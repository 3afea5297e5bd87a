/**
 * The node-type → package map the import uses for node types the engine lacks: the small map
 * shipped in `resources/node-packages.json`, and over it the community's full map downloaded from
 * `NODE_MAP_URL` (the package manager's `extension-node-map.json`: install URL → `[node types,
 * meta]`; Studio's own `{nodes: {type: {package, url}}}` is read too) and cached in the data
 * directory. An import downloads only when it meets a node type neither map knows and the cache
 * is missing or older than a day; a failed download is not retried for ten minutes, so imports
 * stay quick offline. Where both maps name a type, the shipped (curated) one wins.
 */
import fs from 'node:fs/promises';
import { z } from 'zod';
import { DomainError } from '../../domain-error.js';
import { writeFileAtomic } from '../../fs-durable.js';
import type { NodeMap } from './requirements.js';
import type { KnownSources } from './node-sources.js';
import type { MapPackage } from '../../contracts/nodes.contract.js';

const studioMapSchema = z.object({ nodes: z.record(z.string(), z.object({ package: z.string().min(1), url: z.string().url() })) });
const cacheSchema = studioMapSchema.extend({ source: z.string(), fetched_at: z.string() });

const MAX_BYTES = 32 * 1024 * 1024;
const MAX_AGE_MS = 24 * 3_600_000;
const RETRY_AFTER_MS = 10 * 60_000;
const TIMEOUT_MS = 20_000;

/** What `GET /api/admin/workflows/import/node-map` answers. */
export interface NodeMapStatus {
  /** Where the map is downloaded from; null when downloads are off. */
  url: string | null;
  /** When the cached download was made (ISO time), null when there is none. */
  fetched_at: string | null;
  /** Node types known: shipped, downloaded (distinct packages of the download). */
  shipped_types: number;
  downloaded_types: number;
  downloaded_packages: number;
  /** Why the last download failed, when it did. */
  error: string | null;
}

interface Cached {
  nodes: NodeMap;
  fetchedAt: string;
}

export class NodeMapStore {
  private shipped: Promise<NodeMap> | null = null;
  private cached: Cached | null | undefined;
  private lastFailure: { at: number; message: string } | null = null;
  private inflight: Promise<void> | null = null;

  constructor(private readonly options: { shippedFile: string; cacheFile: string; url: string | null }) {}

  /**
   * The map to resolve `types` with: shipped over downloaded. When some of `types` are in
   * neither and the download is due, it is made first (its failure is only a warning).
   */
  async mapFor(types: Iterable<string>): Promise<{ map: NodeMap; warning?: string }> {
    const shipped = await this.shippedMap();
    let downloaded = await this.cache();
    const unknown = [...types].filter((type) => !shipped[type] && !downloaded?.nodes[type]);
    let warning: string | undefined;
    if (unknown.length > 0 && this.due(downloaded)) {
      try {
        await this.download();
      } catch (error) {
        warning = `the node map could not be downloaded (${(error as Error).message}); packages of unknown node types are not named`;
      }
      downloaded = await this.cache();
    }
    return { map: { ...(downloaded?.nodes ?? {}), ...shipped }, ...(warning ? { warning } : {}) };
  }

  /**
   * Package name (lower case) → the install URLs the maps give it, the shipped (curated) map's
   * first; never downloads (what is cached is what is known).
   */
  async knownSources(): Promise<KnownSources> {
    const known = new Map<string, string[]>();
    const add = (map: NodeMap) => {
      for (const { package: pkg, url } of Object.values(map)) {
        const urls = known.get(pkg.toLowerCase()) ?? [];
        if (!urls.includes(url)) urls.push(url);
        known.set(pkg.toLowerCase(), urls);
      }
    };
    add(await this.shippedMap());
    add((await this.cache())?.nodes ?? {});
    return known;
  }

  /** Every package the maps know by install URL, with its node types (the shipped map's first); never downloads. */
  async packages(): Promise<MapPackage[]> {
    const byUrl = new Map<string, MapPackage>();
    const add = (map: NodeMap) => {
      for (const [type, { package: pkg, url }] of Object.entries(map)) {
        const entry = byUrl.get(url) ?? { name: pkg, url, node_types: [] };
        if (!entry.node_types.includes(type)) entry.node_types.push(type);
        byUrl.set(url, entry);
      }
    };
    add(await this.shippedMap());
    add((await this.cache())?.nodes ?? {});
    return [...byUrl.values()];
  }

  /** Download the map now (the refresh route); 502 when the source fails, 409 when downloads are off. */
  async refresh(): Promise<NodeMapStatus> {
    if (!this.options.url) throw new DomainError('conflict', 'Node map downloads are off (NODE_MAP_URL is empty)');
    try {
      await this.download();
    } catch (error) {
      throw new DomainError('upstream', `The node map could not be downloaded from ${this.options.url}: ${(error as Error).message}`);
    }
    return this.status();
  }

  async status(): Promise<NodeMapStatus> {
    const shipped = await this.shippedMap();
    const cached = await this.cache();
    const nodes = cached?.nodes ?? {};
    return {
      url: this.options.url,
      fetched_at: cached?.fetchedAt ?? null,
      shipped_types: Object.keys(shipped).length,
      downloaded_types: Object.keys(nodes).length,
      downloaded_packages: new Set(Object.values(nodes).map((n) => n.url)).size,
      error: this.lastFailure?.message ?? null,
    };
  }

  private due(cached: Cached | null): boolean {
    if (!this.options.url) return false;
    if (this.lastFailure && Date.now() - this.lastFailure.at < RETRY_AFTER_MS) return false;
    return !cached || Date.now() - Date.parse(cached.fetchedAt) > MAX_AGE_MS;
  }

  /** One download at a time; the cache file is written through a temporary one (`writeFileAtomic`). */
  private download(): Promise<void> {
    this.inflight ??= this.fetchAndStore().finally(() => {
      this.inflight = null;
    });
    return this.inflight;
  }

  private async fetchAndStore(): Promise<void> {
    const url = this.options.url!;
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const text = await res.text();
      if (text.length > MAX_BYTES) throw new Error('the map is larger than 32 MB');
      const nodes = parseNodeMap(JSON.parse(text));
      if (Object.keys(nodes).length === 0) throw new Error('the map names no node types');
      const fetchedAt = new Date().toISOString();
      await writeFileAtomic(this.options.cacheFile, JSON.stringify({ source: url, fetched_at: fetchedAt, nodes }));
      this.cached = { nodes, fetchedAt };
      this.lastFailure = null;
    } catch (error) {
      const message = error instanceof SyntaxError ? `not JSON (${error.message})` : (error as Error).message;
      this.lastFailure = { at: Date.now(), message };
      throw new Error(message, { cause: error });
    }
  }

  private shippedMap(): Promise<NodeMap> {
    this.shipped ??= fs
      .readFile(this.options.shippedFile, 'utf8')
      .then((text) => studioMapSchema.parse(JSON.parse(text)).nodes)
      .catch(() => ({}));
    return this.shipped;
  }

  /** The cached download (read once from disk); null when there is none or it is unreadable. */
  private async cache(): Promise<Cached | null> {
    if (this.cached === undefined) {
      try {
        const parsed = cacheSchema.parse(JSON.parse(await fs.readFile(this.options.cacheFile, 'utf8')));
        this.cached = parsed.source === this.options.url ? { nodes: parsed.nodes, fetchedAt: parsed.fetched_at } : null;
      } catch {
        this.cached = null;
      }
    }
    return this.cached;
  }
}

/**
 * A downloaded map → node type → package. The package manager's form: `{"<install url>": [[types…],
 * {title_aux…}]}`; the package is the URL's last path segment (as it is cloned into
 * `custom_nodes/`). The first package naming a type keeps it. Studio's own form is read as it is.
 */
function parseNodeMap(raw: unknown): NodeMap {
  const own = studioMapSchema.safeParse(raw);
  if (own.success) return own.data.nodes;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new Error('the map is not a JSON object');
  const nodes: NodeMap = {};
  for (const [url, value] of Object.entries(raw as Record<string, unknown>)) {
    if (!/^https:\/\/[^\s/]+\/\S+$/.test(url) || !Array.isArray(value) || !Array.isArray(value[0])) continue;
    const pkg = url.replace(/\/+$/, '').replace(/\.git$/, '').split('/').pop();
    if (!pkg) continue;
    for (const type of value[0]) if (typeof type === 'string' && type !== '' && !nodes[type]) nodes[type] = { package: pkg, url };
  }
  return nodes;
}

/**
 * `POST /api/admin/modelhub/tags/sync` and `GET /api/admin/modelhub/tags`: tag ids found in the
 * stored gallery items (`tagIds`, or `tags` as ids or `{id, name}` objects) are resolved to names
 * through the hub's batch query and cached; names an item already carries need no lookup.
 */
import { romeIso } from '../time.js';
import type { GalleryStore } from './gallery.store.js';
import type { ModelhubClient } from '../modelhub-client/modelhub.client.js';
import { viaHub } from './modelhub-errors.js';
import type { TagRow, TagStore } from './tags.store.js';

/** What a sync did. */
export interface TagSyncResult {
  status: 'synced';
  /** Distinct tag ids found in gallery metadata. */
  seen: number;
  /** Names newly cached (from items or the hub). */
  resolved: number;
  /** Ids the hub did not know. */
  unknown: number[];
  /** Tags in the cache now. */
  total: number;
}

export interface TagServiceDeps {
  client: ModelhubClient;
  gallery: GalleryStore;
  tags: TagStore;
}

/** Tag names for gallery items. */
export class TagService {
  constructor(private readonly deps: TagServiceDeps) {}

  /** Resolve the tag ids of the gallery not cached yet. */
  async sync(): Promise<TagSyncResult> {
    const ids = new Set<number>();
    const named = new Map<number, string>();
    for (const json of this.deps.gallery.itemJson()) collectTags(json, ids, named);
    const known = this.deps.tags.knownIds();
    const carried = new Map([...named].filter(([id]) => !known.has(id)));
    const missing = [...ids].filter((id) => !known.has(id) && !carried.has(id)).sort((a, b) => a - b);
    const fromHub = missing.length ? await viaHub(() => this.deps.client.tagNames(missing)) : new Map<number, string>();
    const fresh = new Map([...carried, ...fromHub]);
    this.deps.tags.put(fresh, romeIso());
    return { status: 'synced', seen: ids.size, resolved: fresh.size, unknown: missing.filter((id) => !fromHub.has(id)), total: known.size + fresh.size };
  }

  /** The cached tags. */
  list(): { tags: TagRow[]; total: number } {
    const tags = this.deps.tags.list();
    return { tags, total: tags.length };
  }
}

function collectTags(json: string, ids: Set<number>, named: Map<number, string>): void {
  let item: { tagIds?: unknown; tags?: unknown };
  try {
    item = JSON.parse(json) as typeof item;
  } catch {
    return;
  }
  for (const list of [item.tagIds, item.tags]) {
    if (!Array.isArray(list)) continue;
    for (const tag of list as unknown[]) {
      if (typeof tag === 'number' && Number.isSafeInteger(tag) && tag > 0) ids.add(tag);
      else if (tag && typeof tag === 'object') {
        const { id, name } = tag as { id?: unknown; name?: unknown };
        if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 0) continue;
        ids.add(id);
        if (typeof name === 'string' && name !== '') named.set(id, name);
      }
    }
  }
}

/**
 * The gallery in SQLite (migration 4): `gallery_items` (one row per hub image in a model's
 * gallery; paths relative to `STUDIO_DIR/gallery`) and `gallery_fetches` (the background fetch
 * of each model: phase, cursor and counters, so it resumes after a restart).
 */
import type { Db } from '../db/database.js';
import type { z } from 'zod';
import type { FetchRow, GallerySource, galleryListQuery } from '../contracts/modelhub.contract.js';

/** A stored gallery item. */
export interface GalleryRow {
  model_id: string;
  id: number;
  source: GallerySource;
  media_type: 'image' | 'video';
  content_type: string;
  file: string;
  thumb: string | null;
  bytes: number;
  width: number | null;
  height: number | null;
  version_id: string | null;
  username: string | null;
  created_at: string | null;
  created_ms: number;
  starred: number;
  item: string;
  fetched_at: string;
}

/** The listing's filter: the route's query as parsed. */
export type GalleryFilter = z.output<typeof galleryListQuery>;

/** One listed item (`GalleryItemView` in gallery.service.ts), as SQLite `json_object` arguments. */
const ITEM_JSON = [
  "'id', id, 'model_id', model_id, 'source', source, 'type', media_type, 'content_type', content_type",
  "'width', width, 'height', height, 'bytes', bytes, 'created_at', created_at",
  "'starred', json(CASE starred WHEN 1 THEN 'true' ELSE 'false' END), 'username', username, 'version_id', version_id",
  "'media_url', '/api/admin/loras/gallery/media/' || id, 'thumb_url', '/api/admin/loras/gallery/thumb/' || id",
].join(', ');

const ITEM_COLUMNS = 'id, model_id, source, media_type, content_type, width, height, bytes, created_at, starred, username, version_id';

/** Listings kept between writes (a gallery changes only while it is fetched or starred). */
const MAX_CACHED_LISTINGS = 32;

/** Gallery items and fetch jobs. */
export class GalleryStore {
  /** Listing JSON by model and filter; emptied by every write to `gallery_items`. */
  private readonly listings = new Map<string, { json: string; total: number }>();

  constructor(private readonly db: Db) {}

  /** Whether the model's gallery already has the image. */
  has(modelId: string, id: number): boolean {
    return this.db.prepare('SELECT 1 FROM gallery_items WHERE model_id = ? AND id = ?').get(modelId, id) !== undefined;
  }

  /** Store an item (replacing the same image of the same model). */
  put(row: GalleryRow): void {
    this.listings.clear();
    this.db
      .prepare(
        `INSERT OR REPLACE INTO gallery_items (model_id, id, source, media_type, content_type, file, thumb, bytes, width, height, version_id, username, created_at, created_ms, starred, item, fetched_at)
         VALUES (@model_id, @id, @source, @media_type, @content_type, @file, @thumb, @bytes, @width, @height, @version_id, @username, @created_at, @created_ms, @starred, @item, @fetched_at)`,
      )
      .run(row);
  }

  /**
   * A model's items, newest first, as a JSON array text built by SQLite (the listing's item
   * shape), and how many match the filter in all. Building the JSON in SQLite spares a JS object
   * per row and a stringify: a 5 000-item listing is answered in about half the time.
   */
  listJson(modelId: string, filter: GalleryFilter = {}): { json: string; total: number } {
    const key = JSON.stringify([modelId, filter.source ?? null, filter.starred ?? null, filter.limit ?? null, filter.offset ?? null]);
    const cached = this.listings.get(key);
    if (cached) return cached;
    const where = ['model_id = @modelId'];
    if (filter.source) where.push('source = @source');
    if (filter.starred !== undefined) where.push('starred = @starred');
    const params = { modelId, source: filter.source ?? null, starred: filter.starred ? 1 : 0, limit: filter.limit ?? -1, offset: filter.offset ?? 0 };
    const clause = where.join(' AND ');
    const json = this.db
      .prepare(
        // The ordered subquery feeds the aggregate in its order (SQLite never flattens an ordered
        // subquery into an aggregate); an ORDER BY inside json_group_array would sort again and
        // measured 2.5 times slower.
        `SELECT json_group_array(json_object(${ITEM_JSON})) FROM (
           SELECT ${ITEM_COLUMNS} FROM gallery_items WHERE ${clause} ORDER BY created_ms DESC, id DESC LIMIT @limit OFFSET @offset)`,
      )
      .pluck()
      .get(params) as string;
    const total = (this.db.prepare(`SELECT COUNT(*) AS n FROM gallery_items WHERE ${clause}`).get(params) as { n: number }).n;
    if (this.listings.size >= MAX_CACHED_LISTINGS) this.listings.clear();
    this.listings.set(key, { json, total });
    return { json, total };
  }

  /** The item with this hub id (the most recently fetched one when two models have it). */
  byId(id: number): GalleryRow | null {
    return (this.db.prepare('SELECT * FROM gallery_items WHERE id = ? ORDER BY fetched_at DESC LIMIT 1').get(id) as GalleryRow | undefined) ?? null;
  }

  /** Remove a model's items and its fetch record; returns how many items went. */
  deleteModel(modelId: string): number {
    this.listings.clear();
    return this.db.transaction(() => {
      this.db.prepare('DELETE FROM gallery_fetches WHERE model_id = ?').run(modelId);
      return this.db.prepare('DELETE FROM gallery_items WHERE model_id = ?').run(modelId).changes;
    })();
  }

  /** Flip the starred flag of every row of the image; the new state, or null when unknown. */
  toggleStar(id: number): boolean | null {
    this.listings.clear();
    return this.db.transaction(() => {
      const row = this.byId(id);
      if (!row) return null;
      const next = row.starred ? 0 : 1;
      this.db.prepare('UPDATE gallery_items SET starred = ? WHERE id = ?').run(next, id);
      return next === 1;
    })();
  }

  /** The stored JSON of every item, one at a time (tag ids are read from it). */
  *itemJson(): Generator<string> {
    for (const row of this.db.prepare('SELECT item FROM gallery_items').iterate() as Iterable<{ item: string }>) yield row.item;
  }

  /** The fetch record of a model. */
  fetch(modelId: string): FetchRow | null {
    return (this.db.prepare('SELECT * FROM gallery_fetches WHERE model_id = ?').get(modelId) as FetchRow | undefined) ?? null;
  }

  /** Start (or restart) a model's fetch from the beginning. */
  startFetch(modelId: string, now: string): FetchRow {
    this.db
      .prepare(
        `INSERT OR REPLACE INTO gallery_fetches (model_id, status, phase, cursor, pages, seen, downloaded, skipped, failed, error, started_at, updated_at, finished_at)
         VALUES (?, 'queued', 'original', NULL, 0, 0, 0, 0, 0, NULL, ?, ?, NULL)`,
      )
      .run(modelId, now, now);
    return this.fetch(modelId)!;
  }

  /** Change fields of a fetch record. */
  updateFetch(modelId: string, patch: Partial<Omit<FetchRow, 'model_id'>>): void {
    const keys = Object.keys(patch) as Array<keyof typeof patch>;
    if (keys.length === 0) return;
    const sets = keys.map((key) => `${key} = @${key}`).join(', ');
    this.db.prepare(`UPDATE gallery_fetches SET ${sets} WHERE model_id = @model_id`).run({ ...patch, model_id: modelId });
  }

  /** Fetches a stop or a crash left unfinished, oldest first. */
  unfinished(): FetchRow[] {
    return this.db.prepare("SELECT * FROM gallery_fetches WHERE status IN ('queued','running') ORDER BY started_at").all() as FetchRow[];
  }
}

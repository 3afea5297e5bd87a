/**
 * The gallery in SQLite (migration 4): `gallery_items` (one row per hub image in a model's
 * gallery; paths relative to `STUDIO_DIR/gallery`) and `gallery_fetches` (the background fetch
 * of each model: phase, cursor and counters, so it resumes after a restart).
 */
import type { Db } from '../db/database.js';

/** Where an item came from: the model's own version images, or the community's. */
export type GallerySource = 'original' | 'community';

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

/** A row of the listing (no `item` JSON: `gallery/{id}/meta` serves it). */
export type GalleryListRow = Omit<GalleryRow, 'item'>;

export interface GalleryFilter {
  source?: GallerySource;
  starred?: boolean;
  limit?: number;
  offset?: number;
}

export type FetchStatus = 'queued' | 'running' | 'done' | 'error';

/** The state of one model's background fetch. */
export interface FetchRow {
  model_id: string;
  status: FetchStatus;
  phase: GallerySource;
  cursor: string | null;
  pages: number;
  seen: number;
  downloaded: number;
  skipped: number;
  failed: number;
  error: string | null;
  started_at: string;
  updated_at: string;
  finished_at: string | null;
}

const LIST_COLUMNS = 'model_id, id, source, media_type, content_type, file, thumb, bytes, width, height, version_id, username, created_at, created_ms, starred, fetched_at';

/** Gallery items and fetch jobs. */
export class GalleryStore {
  constructor(private readonly db: Db) {}

  /** Whether the model's gallery already has the image. */
  has(modelId: string, id: number): boolean {
    return this.db.prepare('SELECT 1 FROM gallery_items WHERE model_id = ? AND id = ?').get(modelId, id) !== undefined;
  }

  /** Store an item (replacing the same image of the same model). */
  put(row: GalleryRow): void {
    this.db
      .prepare(
        `INSERT OR REPLACE INTO gallery_items (model_id, id, source, media_type, content_type, file, thumb, bytes, width, height, version_id, username, created_at, created_ms, starred, item, fetched_at)
         VALUES (@model_id, @id, @source, @media_type, @content_type, @file, @thumb, @bytes, @width, @height, @version_id, @username, @created_at, @created_ms, @starred, @item, @fetched_at)`,
      )
      .run(row);
  }

  /** A model's items, newest first, and how many match the filter in all. */
  list(modelId: string, filter: GalleryFilter = {}): { rows: GalleryListRow[]; total: number } {
    const where = ['model_id = @modelId'];
    if (filter.source) where.push('source = @source');
    if (filter.starred !== undefined) where.push('starred = @starred');
    const params = { modelId, source: filter.source ?? null, starred: filter.starred ? 1 : 0, limit: filter.limit ?? -1, offset: filter.offset ?? 0 };
    const clause = where.join(' AND ');
    const rows = this.db
      .prepare(`SELECT ${LIST_COLUMNS} FROM gallery_items WHERE ${clause} ORDER BY created_ms DESC, id DESC LIMIT @limit OFFSET @offset`)
      .all(params) as GalleryListRow[];
    const total = (this.db.prepare(`SELECT COUNT(*) AS n FROM gallery_items WHERE ${clause}`).get(params) as { n: number }).n;
    return { rows, total };
  }

  /** The item with this hub id (the most recently fetched one when two models have it). */
  byId(id: number): GalleryRow | null {
    return (this.db.prepare('SELECT * FROM gallery_items WHERE id = ? ORDER BY fetched_at DESC LIMIT 1').get(id) as GalleryRow | undefined) ?? null;
  }

  /** Every item of a model (for deletion). */
  rowsOf(modelId: string): GalleryListRow[] {
    return this.db.prepare(`SELECT ${LIST_COLUMNS} FROM gallery_items WHERE model_id = ?`).all(modelId) as GalleryListRow[];
  }

  /** Remove a model's items and its fetch record; returns how many items went. */
  deleteModel(modelId: string): number {
    return this.db.transaction(() => {
      this.db.prepare('DELETE FROM gallery_fetches WHERE model_id = ?').run(modelId);
      return this.db.prepare('DELETE FROM gallery_items WHERE model_id = ?').run(modelId).changes;
    })();
  }

  /** Flip the starred flag of every row of the image; the new state, or null when unknown. */
  toggleStar(id: number): boolean | null {
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

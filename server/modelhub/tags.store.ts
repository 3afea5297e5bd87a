/**
 * Names of hub tag ids (table `modelhub_tags`, migration 4), cached so the gallery can show
 * what a community image was tagged with without asking the hub again.
 */
import type { Db } from '../db/database.js';

/** A cached tag. */
export interface TagRow {
  id: number;
  name: string;
  resolved_at: string;
}

/** The tag-name cache. */
export class TagStore {
  constructor(private readonly db: Db) {}

  /** Every cached tag, by name. */
  list(): TagRow[] {
    return this.db.prepare('SELECT id, name, resolved_at FROM modelhub_tags ORDER BY name COLLATE NOCASE, id').all() as TagRow[];
  }

  /** The ids already cached. */
  knownIds(): Set<number> {
    return new Set((this.db.prepare('SELECT id FROM modelhub_tags').all() as Array<{ id: number }>).map((row) => row.id));
  }

  /** Cache names (one transaction). */
  put(names: ReadonlyMap<number, string>, now: string): void {
    const insert = this.db.prepare('INSERT OR REPLACE INTO modelhub_tags (id, name, resolved_at) VALUES (?, ?, ?)');
    this.db.transaction(() => {
      for (const [id, name] of names) insert.run(id, name, now);
    })();
  }
}

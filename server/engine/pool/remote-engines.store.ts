/**
 * The engines added by URL (`engines` table): a ComfyUI on another machine, or another Studio
 * running as an agent (with the API key Studio sends it). The local and per-GPU engines come from
 * configuration and are never stored.
 */
import type { Db } from '../../db/database.js';

export interface RemoteEngineRow {
  id: string;
  name: string;
  kind: 'remote' | 'agent';
  url: string;
  key: string | null;
  added_ms: number;
}

export class RemoteEngineStore {
  private readonly allStmt;
  private readonly insertStmt;
  private readonly deleteStmt;

  constructor(db: Db) {
    this.allStmt = db.prepare('SELECT * FROM engines ORDER BY added_ms');
    this.insertStmt = db.prepare('INSERT INTO engines (id, name, kind, url, key, added_ms) VALUES (@id, @name, @kind, @url, @key, @added_ms)');
    this.deleteStmt = db.prepare('DELETE FROM engines WHERE id = ?');
  }

  all(): RemoteEngineRow[] {
    return this.allStmt.all() as RemoteEngineRow[];
  }

  add(row: RemoteEngineRow): void {
    this.insertStmt.run(row);
  }

  /** True when a row was removed. */
  remove(id: string): boolean {
    return this.deleteStmt.run(id).changes > 0;
  }
}

/**
 * Key/value settings in the `settings` table (spec: `GET/PUT /api/admin/settings`). Values are
 * stored as text; callers parse them, so one row shape serves every setting.
 */
import type { Db } from './database.js';

/** Reads and writes rows of the `settings` table. */
export class SettingsStore {
  private readonly select;
  private readonly upsert;

  constructor(db: Db) {
    this.select = db.prepare('SELECT value FROM settings WHERE key = ?');
    this.upsert = db.prepare(
      'INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
    );
  }

  /** The stored text of `key`, or null. */
  get(key: string): string | null {
    const row = this.select.get(key) as { value: string } | undefined;
    return row?.value ?? null;
  }

  /** Store `value` under `key` (insert or replace). */
  set(key: string, value: string): void {
    this.upsert.run(key, value, new Date().toISOString());
  }

  /** An integer setting, or `fallback` when it is missing or not an integer. */
  getInt(key: string, fallback: number): number {
    const raw = this.get(key);
    if (raw === null) return fallback;
    const value = Number(raw);
    return Number.isInteger(value) ? value : fallback;
  }
}

/**
 * The `system.migration` event (spec Events): which schema migrations `openDatabase` applied
 * during this boot, read back from the `schema_migrations` table by their time of application.
 */
import type { Db } from '../db/database.js';
import type { EventBus } from '../events/event-bus.js';

/** Emit `system.migration` when migrations were applied at or after `bootMs`; returns how many. */
export function reportMigrations(db: Db, events: EventBus, bootMs: number): number {
  const rows = db
    .prepare('SELECT version, name FROM schema_migrations WHERE applied_at >= ? ORDER BY version')
    .all(new Date(bootMs).toISOString()) as Array<{ version: number; name: string }>;
  if (rows.length === 0) return 0;
  const from = rows[0]!.version - 1;
  const to = rows.at(-1)!.version;
  const what = from === 0 ? `Database created at schema version ${to}` : `Database migrated from schema version ${from} to ${to}`;
  events.emit('system.migration', 'info', `${what} (${rows.map((r) => r.name).join('; ')})`, { from, to, migrations: rows });
  return rows.length;
}

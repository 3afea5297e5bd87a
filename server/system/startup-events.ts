/**
 * The events of Studio's start: which schema migrations `openDatabase` applied during this boot
 * (`system.migration`, spec Events, read back from the `schema_migrations` table by their time of
 * application); once it listens, that it started (version, port, engine mode), and when it kept to
 * loopback because the API key is too weak for a network, how to open it up.
 */
import { MIN_LAN_KEY_LENGTH, type Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { EventBus } from '../events/event-bus.js';

export function announceStart(config: Readonly<Config>, events: EventBus, port: number): void {
  events.emit('system.backend.started', 'info', `Studio ${config.version} started on port ${port}`, {
    version: config.version,
    port,
    host: config.host,
    engine_mode: config.engine.mode,
  });
  if (!config.loopbackReason) return;
  const why =
    config.loopbackReason === 'default-key' ? 'Studio uses the built-in API key' : `API_KEY is shorter than ${MIN_LAN_KEY_LENGTH} characters, too short to expose on a network`;
  events.emit(
    'system.security',
    'warning',
    `${why}, so it listens on 127.0.0.1 only. To open LAN access, set API_KEY to a random secret of at least ` +
      `${MIN_LAN_KEY_LENGTH} characters (and STUDIO_HOST if 0.0.0.0 is not wanted) and restart Studio.`,
    { host: config.host, requested_host: config.requestedHost, reason: config.loopbackReason },
  );
}

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

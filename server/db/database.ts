/**
 * Opens Studio's SQLite database with the settings a long-running server needs (WAL, foreign
 * keys, a busy timeout, synchronous=NORMAL) and brings its schema up to date.
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseCorruptError, isCorruption, quickCheck } from './database-check.js';
import { MIGRATIONS, type Migration } from './migrations.js';

export type Db = Database.Database;

/** The database was written by a newer Studio; opening it could corrupt data it relies on. */
export class DatabaseTooNewError extends Error {
  constructor(
    readonly file: string,
    readonly found: number,
    readonly supported: number,
  ) {
    super(
      `The database ${file} has schema version ${found}, but this Studio only knows up to ${supported}. ` +
        'It was written by a newer Studio: update Studio, or point STUDIO_DIR at another data directory.',
    );
  }
}

/**
 * Open (creating if needed), check and migrate the database file. Throws `DatabaseCorruptError`
 * when the file is not a database or fails SQLite's quick check, before anything is written to it.
 */
export function openDatabase(file: string, migrations: readonly Migration[] = MIGRATIONS): Db {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  // Created 0600 before SQLite opens it: SQLite gives its WAL and SHM files the database's mode.
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  restrictToOwner(file);
  // An empty file is a new database; anything else must be a sound one.
  if (fs.statSync(file).size > 0) quickCheck(file);
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    db.pragma('synchronous = NORMAL');
    migrate(db, file, migrations);
    for (const side of [`${file}-wal`, `${file}-shm`]) if (fs.existsSync(side)) restrictToOwner(side);
    return db;
  } catch (err) {
    db.close();
    throw isCorruption(err) ? new DatabaseCorruptError(file, [(err as Error).message]) : err;
  }
}

/** The newest migration applied to `db` (0 for a new file). */
export function schemaVersion(db: Db): number {
  const row = db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number | null };
  return row.v ?? 0;
}

function migrate(db: Db, file: string, migrations: readonly Migration[]): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const current = schemaVersion(db);
  const latest = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  if (current > latest) throw new DatabaseTooNewError(file, current, latest);
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      record.run(migration.version, migration.name, new Date().toISOString());
    })();
  }
}

/** Flush the WAL into the main file (shutdown and restart do this). */
export function checkpoint(db: Db): void {
  db.pragma('wal_checkpoint(TRUNCATE)');
}

/** chmod 0600 (no-op on Windows, where modes mean nothing). */
function restrictToOwner(file: string): void {
  if (process.platform !== 'win32') fs.chmodSync(file, 0o600);
}

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DatabaseTooNewError, openDatabase, schemaVersion } from '../../../server/db/database.js';
import { MIGRATIONS } from '../../../server/db/migrations.js';

let dir: string;
beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-db-'))));
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('openDatabase', () => {
  it('creates the tables with WAL, foreign keys and a busy timeout, and records migrations', () => {
    const db = openDatabase(path.join(dir, 'db', 'studio.db'));
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type='table'").all() as Array<{ name: string }>).map((r) => r.name);
    for (const t of ['jobs', 'events', 'settings', 'saved_prompts', 'schema_migrations']) expect(tables).toContain(t);
    expect(schemaVersion(db)).toBe(MIGRATIONS.at(-1)!.version);
    db.close();
  });

  it('applies only missing migrations on reopen, each in a transaction', () => {
    const file = path.join(dir, 'studio.db');
    openDatabase(file).close();
    const extra = [...MIGRATIONS, { version: 99, name: 'broken', sql: 'CREATE TABLE half (x); THIS IS NOT SQL;' }];
    expect(() => openDatabase(file, extra)).toThrow();
    const db = openDatabase(file);
    // The failed migration left nothing behind.
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name='half'").get()).toBeUndefined();
    expect(schemaVersion(db)).toBe(MIGRATIONS.at(-1)!.version);
    db.close();
  });

  it('refuses a database written by a newer Studio with a clear message', () => {
    const file = path.join(dir, 'studio.db');
    const db = openDatabase(file);
    db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(500, 'from the future', 'now');
    db.close();
    let error: unknown;
    try {
      openDatabase(file);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(DatabaseTooNewError);
    expect((error as Error).message).toMatch(/schema version 500.*newer Studio/);
  });
});

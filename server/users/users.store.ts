/**
 * The `users` and `user_keys` tables (migration 13). People are few: they are read once and kept
 * in memory, since every request authenticated by a person's session asks for them.
 */
import type { Db } from '../db/database.js';
import type { Allow, KeyScope, Quotas, Role } from '../contracts/users.contract.js';

export interface UserRow {
  id: string;
  name: string;
  role: Exclude<Role, 'owner'>;
  passwordHash: string;
  quotas: Quotas | null;
  allow: Allow | null;
  disabled: boolean;
  sessionsAfterMs: number;
  createdMs: number;
}

export interface KeyRow {
  id: string;
  userId: string;
  name: string;
  scope: KeyScope;
  prefix: string;
  createdMs: number;
  lastUsedMs: number | null;
}

interface RawUser {
  id: string;
  name: string;
  role: UserRow['role'];
  password_hash: string;
  quotas: string | null;
  allow: string | null;
  disabled: number;
  sessions_after_ms: number;
  created_ms: number;
}

interface RawKey {
  id: string;
  user_id: string;
  name: string;
  scope: KeyScope;
  prefix: string;
  created_ms: number;
  last_used_ms: number | null;
}

const KEY_COLUMNS = 'id, user_id, name, scope, prefix, created_ms, last_used_ms';

export class UsersStore {
  private readonly people = new Map<string, UserRow>();

  constructor(private readonly db: Db) {
    for (const raw of db.prepare('SELECT * FROM users ORDER BY created_ms').all() as RawUser[]) this.people.set(raw.id, fromRaw(raw));
  }

  all(): UserRow[] {
    return [...this.people.values()];
  }

  byId(id: string): UserRow | undefined {
    return this.people.get(id);
  }

  byName(name: string): UserRow | undefined {
    const key = nameKey(name);
    return this.all().find((u) => nameKey(u.name) === key);
  }

  /** Insert or replace a person (one row: no transaction needed). */
  save(user: UserRow, nowMs: number): void {
    this.db
      .prepare(
        `INSERT INTO users (id, name, name_key, role, password_hash, quotas, allow, disabled, sessions_after_ms, created_ms, updated_ms)
         VALUES (@id, @name, @name_key, @role, @password_hash, @quotas, @allow, @disabled, @sessions_after_ms, @created_ms, @updated_ms)
         ON CONFLICT (id) DO UPDATE SET name = excluded.name, name_key = excluded.name_key, role = excluded.role,
           password_hash = excluded.password_hash, quotas = excluded.quotas, allow = excluded.allow, disabled = excluded.disabled,
           sessions_after_ms = excluded.sessions_after_ms, updated_ms = excluded.updated_ms`,
      )
      .run({
        id: user.id,
        name: user.name,
        name_key: nameKey(user.name),
        role: user.role,
        password_hash: user.passwordHash,
        quotas: user.quotas === null ? null : JSON.stringify(user.quotas),
        allow: user.allow === null ? null : JSON.stringify(user.allow),
        disabled: user.disabled ? 1 : 0,
        sessions_after_ms: user.sessionsAfterMs,
        created_ms: user.createdMs,
        updated_ms: nowMs,
      });
    this.people.set(user.id, user);
  }

  addKey(key: KeyRow & { hash: string }): void {
    this.db
      .prepare('INSERT INTO user_keys (id, user_id, name, scope, prefix, hash, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(key.id, key.userId, key.name, key.scope, key.prefix, key.hash, key.createdMs);
  }

  /** A person's keys in force, oldest first. */
  keysOf(userId: string): KeyRow[] {
    return (this.db.prepare(`SELECT ${KEY_COLUMNS} FROM user_keys WHERE user_id = ? AND revoked_ms IS NULL ORDER BY created_ms`).all(userId) as RawKey[]).map(keyFromRaw);
  }

  /** The key in force with this hash. */
  keyByHash(hash: string): KeyRow | undefined {
    const raw = this.db.prepare(`SELECT ${KEY_COLUMNS} FROM user_keys WHERE hash = ? AND revoked_ms IS NULL`).get(hash) as RawKey | undefined;
    return raw ? keyFromRaw(raw) : undefined;
  }

  /** The key in force with this id (a chat bound to it asks on each call). */
  keyById(id: string): KeyRow | undefined {
    const raw = this.db.prepare(`SELECT ${KEY_COLUMNS} FROM user_keys WHERE id = ? AND revoked_ms IS NULL`).get(id) as RawKey | undefined;
    return raw ? keyFromRaw(raw) : undefined;
  }

  /** Revoke one of a person's keys; false when they hold no such key in force. */
  revokeKey(userId: string, keyId: string, nowMs: number): boolean {
    return this.db.prepare('UPDATE user_keys SET revoked_ms = ? WHERE id = ? AND user_id = ? AND revoked_ms IS NULL').run(nowMs, keyId, userId).changes > 0;
  }

  touchKey(keyId: string, nowMs: number): void {
    this.db.prepare('UPDATE user_keys SET last_used_ms = ? WHERE id = ?').run(nowMs, keyId);
  }
}

/** Names compare without case (Unicode-aware, unlike SQLite's NOCASE). */
export function nameKey(name: string): string {
  return name.trim().normalize('NFKC').toLowerCase();
}

function fromRaw(raw: RawUser): UserRow {
  return {
    id: raw.id,
    name: raw.name,
    role: raw.role,
    passwordHash: raw.password_hash,
    quotas: raw.quotas === null ? null : (JSON.parse(raw.quotas) as Quotas),
    allow: raw.allow === null ? null : (JSON.parse(raw.allow) as Allow),
    disabled: raw.disabled === 1,
    sessionsAfterMs: raw.sessions_after_ms,
    createdMs: raw.created_ms,
  };
}

function keyFromRaw(raw: RawKey): KeyRow {
  return { id: raw.id, userId: raw.user_id, name: raw.name, scope: raw.scope, prefix: raw.prefix, createdMs: raw.created_ms, lastUsedMs: raw.last_used_ms };
}

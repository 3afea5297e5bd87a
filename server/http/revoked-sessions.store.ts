/**
 * Revoked session ids in SQLite, mirrored in memory: every authenticated request asks, so the
 * question must not cost a query. Rows past their expiry are dropped on boot and on each logout.
 */
import type { Db } from '../db/database.js';
import type { RevokedSessions } from './session.js';

export class RevokedSessionStore implements RevokedSessions {
  private readonly ids = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {
    this.prune();
    for (const row of db.prepare('SELECT sid, expires_ms FROM revoked_sessions').all() as Array<{ sid: string; expires_ms: number }>) {
      this.ids.set(row.sid, row.expires_ms);
    }
  }

  isRevoked(sid: string): boolean {
    return this.ids.has(sid);
  }

  revoke(sid: string, expiresMs: number): void {
    this.db.prepare('INSERT OR REPLACE INTO revoked_sessions (sid, expires_ms) VALUES (?, ?)').run(sid, expiresMs);
    this.ids.set(sid, expiresMs);
    this.prune();
  }

  private prune(): void {
    const now = this.now();
    this.db.prepare('DELETE FROM revoked_sessions WHERE expires_ms <= ?').run(now);
    for (const [sid, expires] of this.ids) if (expires <= now) this.ids.delete(sid);
  }
}

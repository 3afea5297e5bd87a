/**
 * Notification targets and their latest deliveries in SQLite (`notify_targets`,
 * `notify_deliveries`, migration 19). A target's secret and token stay here: the wire shape
 * (`toWire`) says only whether a token is set.
 */
import type { Db } from '../db/database.js';
import type { Delivery, DeliveryStatus, NotifyEvent, NotifyKind, NotifyTarget } from '../contracts/notifications.contract.js';
import { romeIso } from '../time.js';

/** Deliveries kept per target: enough to see what went wrong lately. */
const KEPT_DELIVERIES = 20;

export interface TargetRow {
  id: string;
  owner_id: string;
  kind: NotifyKind;
  name: string;
  url: string;
  events: NotifyEvent[];
  secret: string | null;
  token: string | null;
  enabled: boolean;
  created_ms: number;
}

interface RawTarget extends Omit<TargetRow, 'events' | 'enabled'> {
  events: string;
  enabled: number;
}

interface RawDelivery extends Omit<Delivery, 'at'> {
  at_ms: number;
}

const fromRaw = (raw: RawTarget): TargetRow => ({ ...raw, events: JSON.parse(raw.events) as NotifyEvent[], enabled: raw.enabled === 1 });

export class NotifyStore {
  constructor(private readonly db: Db) {}

  insert(row: TargetRow): void {
    this.db
      .prepare('INSERT INTO notify_targets (id, owner_id, kind, name, url, events, secret, token, enabled, created_ms) VALUES (@id, @owner_id, @kind, @name, @url, @events, @secret, @token, @enabled, @created_ms)')
      .run({ ...row, events: JSON.stringify(row.events), enabled: row.enabled ? 1 : 0 });
  }

  update(row: TargetRow): void {
    this.db
      .prepare('UPDATE notify_targets SET name = @name, url = @url, events = @events, token = @token, enabled = @enabled WHERE id = @id')
      .run({ id: row.id, name: row.name, url: row.url, events: JSON.stringify(row.events), token: row.token, enabled: row.enabled ? 1 : 0 });
  }

  delete(id: string): void {
    this.db.prepare('DELETE FROM notify_targets WHERE id = ?').run(id);
  }

  get(id: string): TargetRow | null {
    const raw = this.db.prepare('SELECT * FROM notify_targets WHERE id = ?').get(id) as RawTarget | undefined;
    return raw ? fromRaw(raw) : null;
  }

  ofOwner(ownerId: string): TargetRow[] {
    return (this.db.prepare('SELECT * FROM notify_targets WHERE owner_id = ? ORDER BY created_ms').all(ownerId) as RawTarget[]).map(fromRaw);
  }

  /** The enabled targets that asked for `event`. */
  wanting(event: NotifyEvent): TargetRow[] {
    return (this.db.prepare('SELECT * FROM notify_targets WHERE enabled = 1 ORDER BY created_ms').all() as RawTarget[]).map(fromRaw).filter((t) => t.events.includes(event));
  }

  /** Record a delivery's state (a new one, or the same id again as its attempts go on), pruning the target's oldest. */
  saveDelivery(targetId: string, d: Omit<Delivery, 'at'>, atMs: number): void {
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO notify_deliveries (id, target_id, event, title, status, attempts, http_status, detail, at_ms) VALUES (@id, @target_id, @event, @title, @status, @attempts, @http_status, @detail, @at_ms)
           ON CONFLICT(id) DO UPDATE SET status = excluded.status, attempts = excluded.attempts, http_status = excluded.http_status, detail = excluded.detail, at_ms = excluded.at_ms`,
        )
        .run({ ...d, target_id: targetId, at_ms: atMs });
      this.db
        .prepare('DELETE FROM notify_deliveries WHERE target_id = ? AND id NOT IN (SELECT id FROM notify_deliveries WHERE target_id = ? ORDER BY at_ms DESC LIMIT ?)')
        .run(targetId, targetId, KEPT_DELIVERIES);
    })();
  }

  deliveries(targetId: string): Delivery[] {
    const rows = this.db.prepare('SELECT id, event, title, status, attempts, http_status, detail, at_ms FROM notify_deliveries WHERE target_id = ? ORDER BY at_ms DESC, rowid DESC').all(targetId) as RawDelivery[];
    return rows.map(({ at_ms, ...d }) => ({ ...d, status: d.status as DeliveryStatus, at: romeIso(new Date(at_ms)) }));
  }

  toWire(row: TargetRow): NotifyTarget {
    return {
      id: row.id,
      kind: row.kind,
      name: row.name,
      url: row.url,
      events: row.events,
      enabled: row.enabled,
      has_token: row.token !== null,
      created_at: romeIso(new Date(row.created_ms)),
      deliveries: this.deliveries(row.id),
    };
  }
}

/**
 * The event bus: a ring buffer of the latest events, `events.jsonl` on disk (rotated above a
 * size so that only the latest entries remain), a mirror in the `events` table, and live
 * subscribers (the WebSocket hub).
 */
import crypto from 'node:crypto';
import type { Db } from '../db/database.js';
import type { Logger } from '../logging.js';
import { romeIso } from '../time.js';
import type { KnownEventType, Severity, StudioEvent } from '../contracts/events.contract.js';
import { EventsFileStore } from './events-file.store.js';

export interface EventBusOptions {
  file: string;
  db?: Db;
  logger: Logger;
  /** Events kept in memory and after rotation (spec: 1000). */
  capacity?: number;
}

export interface EventQuery {
  limit?: number;
  /** Exact types, or prefixes written `job.*`. */
  types?: readonly string[];
  severities?: readonly Severity[];
  /** Only events this accepts (whose they are: `data.user_id`), applied before `limit`. */
  where?: (event: StudioEvent) => boolean;
}

type Listener = (event: StudioEvent) => void;

/** Rotate `events.jsonl` once it grows past this (spec: 5 MB). */
const ROTATE_BYTES = 5 * 1024 * 1024;
/** Rows kept in the `events` table. */
const TABLE_ROWS = 10_000;

export class EventBus {
  private readonly ring: StudioEvent[] = [];
  private readonly listeners = new Set<Listener>();
  private readonly store: EventsFileStore;
  private readonly capacity: number;
  private readonly insert;
  private readonly prune;
  private sincePrune = 0;

  constructor(private readonly options: EventBusOptions) {
    this.store = new EventsFileStore(options.file);
    this.capacity = options.capacity ?? 1000;
    this.insert = options.db?.prepare(
      'INSERT INTO events (id, type, severity, timestamp, message, data) VALUES (@id, @type, @severity, @timestamp, @message, @data)',
    );
    this.prune = options.db?.prepare('DELETE FROM events WHERE seq <= (SELECT MAX(seq) FROM events) - ?');
  }

  /** Fill the ring buffer from `events.jsonl` (boot). */
  load(): void {
    const events = this.store.readAll();
    this.ring.length = 0;
    this.ring.push(...events.slice(-this.capacity));
  }

  /** Record an event: memory, file, table, then live subscribers. */
  emit(type: KnownEventType, severity: Severity, message: string, data: Record<string, unknown> = {}): StudioEvent {
    const event: StudioEvent = { id: this.newId(), type, timestamp: romeIso(), severity, message: clip(message, 2000), data: boundedData(data) };
    this.ring.push(event);
    if (this.ring.length > this.capacity) this.ring.splice(0, this.ring.length - this.capacity);
    this.persist(event);
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        this.options.logger.error(`event listener failed on ${type}`, err);
      }
    }
    return event;
  }

  /** The most recent `limit` events matching the filters, oldest first. */
  list(query: EventQuery = {}): StudioEvent[] {
    const limit = query.limit ?? 100;
    const matches = this.ring.filter(
      (e) => matchesType(e.type, query.types) && (!query.severities?.length || query.severities.includes(e.severity)) && (!query.where || query.where(e)),
    );
    return limit <= 0 ? [] : matches.slice(-limit);
  }

  /** Receive every future event; returns the unsubscribe function. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.listeners.clear();
    this.store.close();
  }

  private persist(event: StudioEvent): void {
    try {
      const size = this.store.append(event);
      // The ring buffer holds exactly the latest `capacity` events, which is what must remain.
      if (size > ROTATE_BYTES) this.store.rewrite(this.ring);
    } catch (err) {
      this.options.logger.error('could not write events.jsonl', err);
    }
    if (this.insert && this.prune) {
      try {
        this.insert.run({ ...event, data: JSON.stringify(event.data) });
        if (++this.sincePrune >= 500) {
          this.sincePrune = 0;
          this.prune.run(TABLE_ROWS);
        }
      } catch (err) {
        this.options.logger.error('could not record event in the database', err);
      }
    }
  }

  private newId(): string {
    for (;;) {
      const id = `evt_${crypto.randomBytes(4).toString('hex')}`;
      if (!this.ring.some((e) => e.id === id)) return id;
    }
  }
}

/**
 * Events are log lines, not storage: a payload over 4 KB keeps only its small fields. This also
 * keeps 1000 events well under the 5 MB rotation size, so a rotation always frees space.
 */
const MAX_DATA_BYTES = 4096;

function boundedData(data: Record<string, unknown>): Record<string, unknown> {
  const size = Buffer.byteLength(JSON.stringify(data) ?? '');
  if (size <= MAX_DATA_BYTES) return data;
  const kept: Record<string, unknown> = { _truncated: true, _bytes: size };
  for (const [key, value] of Object.entries(data)) {
    if ((JSON.stringify(value) ?? '').length <= 256) kept[key] = value;
  }
  return kept;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function matchesType(type: string, patterns: readonly string[] | undefined): boolean {
  if (!patterns?.length) return true;
  return patterns.some((p) => (p.endsWith('*') ? type.startsWith(p.slice(0, -1)) : type === p));
}

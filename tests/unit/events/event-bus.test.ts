import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../../server/db/database.js';
import { EventBus } from '../../../server/events/event-bus.js';
import type { StudioEvent } from '../../../server/contracts/events.contract.js';
import { silentLogger } from '../../../server/logging.js';

let dir: string;
let file: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-events-'));
  file = path.join(dir, 'events.jsonl');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function lines(): StudioEvent[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as StudioEvent);
}

describe('EventBus', () => {
  it('records events with the spec shape: evt_ + 8 hex, Rome time with offset, one JSON line each', () => {
    const bus = new EventBus({ file, logger: silentLogger });
    const event = bus.emit('job.queued', 'info', 'Job queued', { prompt_id: 'p1' });
    expect(event.id).toMatch(/^evt_[0-9a-f]{8}$/);
    expect(event.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-](01|02):00$/);
    expect(new Date(event.timestamp).getTime()).toBeLessThanOrEqual(Date.now());
    expect(Math.abs(new Date(event.timestamp).getTime() - Date.now())).toBeLessThan(5000);
    expect(lines()).toEqual([event]);
    bus.close();
  });

  it('filters by type (exact or prefix*) and severity, and returns the latest `limit`, oldest first', () => {
    const bus = new EventBus({ file, logger: silentLogger });
    for (let i = 0; i < 5; i++) bus.emit('job.queued', 'info', `q${i}`);
    bus.emit('job.failed', 'error', 'f');
    bus.emit('model.deleted', 'info', 'm');
    expect(bus.list({ limit: 2 }).map((e) => e.message)).toEqual(['f', 'm']);
    expect(bus.list({ types: ['job.queued'], limit: 3 }).map((e) => e.message)).toEqual(['q2', 'q3', 'q4']);
    expect(bus.list({ types: ['job.*'] })).toHaveLength(6);
    expect(bus.list({ severities: ['error'] }).map((e) => e.type)).toEqual(['job.failed']);
    expect(bus.list({ types: ['model.deleted', 'job.failed'] })).toHaveLength(2);
    expect(bus.list({ limit: 0 })).toEqual([]);
    bus.close();
  });

  it('keeps only the latest 1000 in memory', () => {
    const bus = new EventBus({ file, logger: silentLogger });
    for (let i = 0; i < 1005; i++) bus.emit('system.restart', 'info', `m${i}`);
    const all = bus.list({ limit: 5000 });
    expect(all).toHaveLength(1000);
    expect(all[0]!.message).toBe('m5');
    bus.close();
  });

  it('rotates events.jsonl above 5 MB so that exactly the latest 1000 remain', () => {
    const bus = new EventBus({ file, logger: silentLogger });
    const padding = 'x'.repeat(3000);
    let previous = 0;
    let rotatedAfter = -1;
    for (let i = 0; i < 2000 && rotatedAfter < 0; i++) {
      bus.emit('system.restart', 'info', `m${i}`, { padding });
      const size = fs.statSync(file).size;
      if (size < previous) rotatedAfter = i;
      else previous = size;
    }
    expect(previous).toBeGreaterThan(5 * 1024 * 1024 - 4000);
    expect(rotatedAfter).toBeGreaterThan(1000);
    const kept = lines();
    expect(kept).toHaveLength(1000);
    expect(kept.map((e) => e.message)).toEqual(Array.from({ length: 1000 }, (_, k) => `m${rotatedAfter - 999 + k}`));
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    // Appends continue after the rotation.
    bus.emit('system.restart', 'info', 'after');
    expect(lines()).toHaveLength(1001);
    bus.close();
  });

  it('keeps oversized payloads bounded', () => {
    const bus = new EventBus({ file, logger: silentLogger });
    const event = bus.emit('system.restart', 'info', 'big', { filename: 'a.png', blob: 'y'.repeat(10_000) });
    expect(event.data).toMatchObject({ _truncated: true, filename: 'a.png' });
    expect(event.data.blob).toBeUndefined();
    bus.close();
  });

  it('loads the buffer back from the file (restart) and skips a torn last line', () => {
    const bus = new EventBus({ file, logger: silentLogger });
    for (let i = 0; i < 3; i++) bus.emit('system.restart', 'info', `m${i}`);
    bus.close();
    fs.appendFileSync(file, '{"id":"evt_torn","ty');
    const again = new EventBus({ file, logger: silentLogger });
    again.load();
    expect(again.list().map((e) => e.message)).toEqual(['m0', 'm1', 'm2']);
    again.close();
  });

  it('mirrors events into the events table and pushes them to subscribers', () => {
    const db: Db = openDatabase(path.join(dir, 'studio.db'));
    const bus = new EventBus({ file, db, logger: silentLogger });
    const seen: string[] = [];
    const off = bus.subscribe((e) => seen.push(e.type));
    bus.emit('model.deleted', 'info', 'one');
    off();
    bus.emit('assets.deleted', 'success', 'two', { n: 1 });
    expect(seen).toEqual(['model.deleted']);
    const rows = db.prepare('SELECT type, severity, data FROM events ORDER BY seq').all();
    expect(rows).toEqual([
      { type: 'model.deleted', severity: 'info', data: '{}' },
      { type: 'assets.deleted', severity: 'success', data: '{"n":1}' },
    ]);
    bus.close();
    db.close();
  });
});

/**
 * The queue's batch lane (issue 45): batch jobs go after every interactive job (appended, the line
 * not renumbered), an interactive job goes to its fair place among the interactive ones only;
 * a batch job starts only when no interactive job waits that an engine can run, when its batch
 * says so, and only on an engine that holds nothing. And a batch's window, read on a given clock.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../../server/db/database.js';
import { BatchLane } from '../../../server/jobs/queue/batch-lane.js';
import { QueueStore } from '../../../server/jobs/queue/queue.store.js';
import type { QueueEngine } from '../../../server/jobs/queue/queue-engine.js';
import { inWindow } from '../../../server/batches/batch-window.js';

let dir: string;
let db: Db;
let store: QueueStore;
let lane: BatchLane;
const open = new Set<string>(['b1']);

const add = (id: string, submitter: string, batchId?: string) => {
  db.prepare("INSERT INTO jobs (prompt_id, status, created_ms) VALUES (?, 'queued', 0)").run(id);
  lane.enqueue(id, { submitter, graph: {}, extraData: {}, batchId });
};
const order = () => store.waiting().map((r) => r.prompt_id).join(' ');
const engine = (id: string, online = true) => ({ id, online: () => online }) as unknown as QueueEngine;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lane-'));
  db = openDatabase(path.join(dir, 'studio.db'));
  store = new QueueStore(db);
  lane = new BatchLane(() => store);
  lane.bind({ mayStart: (id) => open.has(id) });
});
afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('batch lane', () => {
  it('queues batch jobs after the interactive ones, and interactive ones fairly among themselves', () => {
    add('b1-1', 'a', 'b1');
    add('b1-2', 'a', 'b1');
    add('a1', 'a');
    add('a2', 'a');
    add('c1', 'c');
    add('b1-3', 'a', 'b1');
    // A's own 3 batch jobs do not push A's or C's single jobs behind them.
    expect(order()).toBe('a1 c1 a2 b1-1 b1-2 b1-3');
  });

  it("puts a batch's jobs back in its cells' order within the places they hold", () => {
    add('b1-3', 'a', 'b1');
    add('i1', 'z');
    add('b1-1', 'a', 'b1');
    add('b1-2', 'a', 'b1');
    lane.orderWithin(['b1-1', 'b1-2', 'b1-3']);
    expect(order()).toBe('i1 b1-1 b1-2 b1-3');
  });

  it('starts a batch job only when no runnable interactive job waits, its batch allows it, on an idle engine', () => {
    add('b1-1', 'a', 'b1');
    add('x-1', 'a', 'closed');
    const one = [engine('e1')];
    let round = lane.round(store.waiting(), one, () => true);
    expect(round.startable(store.get('b1-1')!)).toBe(true);
    expect(round.startable(store.get('x-1')!)).toBe(false);
    // Never prefetched: only an engine that holds nothing takes it.
    const able = [{ id: 'e1' }, { id: 'e2' }];
    expect(round.fit(store.get('b1-1')!, able, new Map([['e1', 1]]))).toEqual([{ id: 'e2' }]);
    add('i1', 'z');
    round = lane.round(store.waiting(), one, () => true);
    expect(round.startable(store.get('b1-1')!)).toBe(false);
    expect(round.startable(store.get('i1')!)).toBe(true);
    expect(round.fit(store.get('i1')!, able, new Map([['e1', 1]]))).toEqual(able);
    // An interactive job no engine can run does not hold the batch back.
    const two = [engine('e1'), engine('e2')];
    round = lane.round(store.waiting(), two, () => false);
    expect(round.startable(store.get('b1-1')!)).toBe(true);
  });
});

describe('the urgent mark', () => {
  it('pins a job an admin moved ahead (kept across a reopen), and a newcomer does not pass it', () => {
    for (const id of ['a1', 'a2', 'a3', 'a4']) add(id, 'a');
    add('b1', 'b');
    expect(order()).toBe('a1 b1 a2 a3 a4');
    store.hand('a1', 'e1');
    store.hand('a2', 'e1');
    store.move('b1', 5); // moved back: no mark
    store.move('a4', 0);
    expect(store.waiting().map((r) => `${r.prompt_id}${r.pinned ? '*' : ''}`).join(' ')).toBe('a4* a3 b1');
    store = new QueueStore(db);
    // c has had no turn and a two: unpinned, c1 would go before a4.
    add('c1', 'c');
    expect(order()).toBe('a4 c1 a3 b1');
  });
});

describe('batch window', () => {
  // The window reads the box's own clock (the process's zone).
  const at = (hhmm: string) => new Date(`2026-01-15T${hhmm}:00`).getTime();
  it('is open from its start to its end, over midnight too', () => {
    const w = { from: '01:00', to: '07:00' };
    expect(inWindow(w, at('00:58'))).toBe(false);
    expect(inWindow(w, at('01:00'))).toBe(true);
    expect(inWindow(w, at('06:59'))).toBe(true);
    expect(inWindow(w, at('07:00'))).toBe(false);
    const night = { from: '22:00', to: '06:00' };
    expect(inWindow(night, at('23:30'))).toBe(true);
    expect(inWindow(night, at('05:00'))).toBe(true);
    expect(inWindow(night, at('12:00'))).toBe(false);
    expect(inWindow(null, at('12:00'))).toBe(true);
  });
});

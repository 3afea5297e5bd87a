/**
 * Queue numbering and order, history paging, and CLI flags of the stand-in.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFlags } from '../../../server/standin/cli-flags.util.js';
import { HistoryStore } from '../../../server/standin/history.store.js';
import { PromptQueue } from '../../../server/standin/queue.store.js';
import type { HistoryEntry, QueueItem } from '../../../server/standin/standin.types.js';

const item = (number: number, id: string): QueueItem => [number, id, {}, {}, []];

describe('stand-in queue', () => {
  it('numbers like the engine: counter, negated for front, explicit numbers as given', () => {
    const queue = new PromptQueue();
    expect(queue.nextNumber({})).toBe(0);
    expect(queue.nextNumber({})).toBe(1);
    expect(queue.nextNumber({ front: true })).toBe(-2);
    expect(queue.nextNumber({ number: 7.5 })).toBe(7.5);
    expect(queue.nextNumber({})).toBe(3);
  });

  it('runs the lowest number first, arrival order on ties, one at a time', () => {
    const queue = new PromptQueue();
    queue.put(item(2, 'b'));
    queue.put(item(1, 'a'));
    queue.put(item(2, 'c'));
    queue.put(item(-3, 'front'));
    expect(queue.take()?.[1]).toBe('front');
    expect(queue.take()).toBeUndefined();
    expect(queue.remaining()).toBe(4);
    expect(queue.delete(['front', 'c'])).toBe(true);
    expect(queue.snapshot().queue_pending.map((i) => i[1])).toEqual(['a', 'b']);
    queue.finish();
    expect(queue.take()?.[1]).toBe('a');
  });
});

describe('stand-in history', () => {
  const entry = {} as HistoryEntry;
  const history = new HistoryStore();
  for (const id of ['p1', 'p2', 'p3', 'p4']) history.set(id, entry);

  it('pages oldest first, or the newest N when only max_items is given', () => {
    expect(history.list(null, null).map(([id]) => id)).toEqual(['p1', 'p2', 'p3', 'p4']);
    expect(history.list(2, null).map(([id]) => id)).toEqual(['p3', 'p4']);
    expect(history.list(2, 1).map(([id]) => id)).toEqual(['p2', 'p3']);
    expect(history.list(null, 3).map(([id]) => id)).toEqual(['p4']);
    expect(history.one('nope')).toEqual({});
  });
});

describe('stand-in CLI flags', () => {
  it('reads engine-style flags and ignores the engine flags it does not need', () => {
    const warnings: string[] = [];
    const flags = parseFlags(['--port', '0', '--listen=0.0.0.0', '--temp-directory', '/x', '--step-ms', '20', '--cpu'], (m) => warnings.push(m));
    expect(flags).toEqual({ port: 0, host: '0.0.0.0', tempDir: path.join('/x', 'temp'), stepMs: 20 });
    expect(warnings).toEqual(['stand-in: ignoring unsupported flag --cpu']);
    expect(() => parseFlags(['--port', '-1'], () => {})).toThrow(/non-negative integer/);
    expect(() => parseFlags(['--object-info'], () => {})).toThrow(/needs a value/);
    expect(parseFlags(['--resources-dir', '/opt/Studio/resources/resources/standin'], () => {})).toEqual({ resourcesDir: '/opt/Studio/resources/resources/standin' });
  });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clampConcurrency } from '../../../server/downloads/download-manager.service.js';
import { DownloadStore } from '../../../server/downloads/download.store.js';
import { openDatabase, type Db } from '../../../server/db/database.js';

let dir: string;
let db: Db;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
  db = openDatabase(path.join(dir, 'studio.db'));
});

afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('DownloadStore', () => {
  it('keeps queue order, re-queues interrupted rows on boot and forgets finished ones', () => {
    const store = new DownloadStore(db);
    store.enqueue('a', 'models', 0, 100);
    store.enqueue('b', 'loras', 10, null);
    store.enqueue('c', 'llm', 0, 5);
    expect(store.nextQueued()?.filename).toBe('a');
    store.markDownloading('a', 0);
    store.markDownloading('b', 10);
    store.saveProgress('b', 40, null);
    store.markDone('b', 50, 'ff');
    store.markDownloading('c', 0);
    store.markError('c', 'boom', 'network');
    expect(store.nextQueued()).toBeNull();
    expect(store.get('b')).toMatchObject({ status: 'done', bytes: 50, total: 50, sha256: 'ff' });
    expect(store.get('a')).toMatchObject({ status: 'downloading', attempt: 1, total: 100 });

    const rows = new DownloadStore(db).recoverAfterBoot();
    expect(rows.map((r) => [r.filename, r.status])).toEqual([
      ['a', 'queued'],
      ['c', 'error'],
    ]);
    // A re-queued failure goes to the back of the line.
    store.enqueue('c', 'llm', 0, 5);
    store.enqueue('d', 'models', 0, null);
    expect(store.all().map((r) => r.filename)).toEqual(['a', 'c', 'd']);
    expect(store.remove('a')).toBe(true);
    expect(store.remove('a')).toBe(false);
  });

  it('refuses a kind or status outside the spec values', () => {
    expect(() => db.prepare("INSERT INTO downloads (filename, kind, status, queued_at, updated_at) VALUES ('x', 'videos', 'queued', '', '')").run()).toThrow(/CHECK/);
    expect(() => db.prepare("INSERT INTO downloads (filename, kind, status, queued_at, updated_at) VALUES ('x', 'models', 'paused', '', '')").run()).toThrow(/CHECK/);
  });
});

describe('clampConcurrency', () => {
  it('clamps to 1–10 and rounds', () => {
    expect([-5, 0, 1, 2.4, 2.6, 10, 11, Number.NaN].map(clampConcurrency)).toEqual([1, 1, 1, 2, 3, 10, 10, 2]);
  });
});

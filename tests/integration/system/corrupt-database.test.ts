/**
 * A damaged database answers a 500 that names the file and says what to do, and reports it once,
 * instead of "Internal server error": real SQLite errors from a real file with a page overwritten
 * (SQLITE_CORRUPT) and from a file that is not a database at all (SQLITE_NOTADB).
 */
import Database from 'better-sqlite3';
import express from 'express';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer } from '../../../server/http/app.js';
import { Authenticator } from '../../../server/http/authenticator.js';
import { KeyLimiter } from '../../../server/http/key-limiter.js';
import { Maintenance } from '../../../server/http/maintenance.js';
import { SessionSigner } from '../../../server/http/session.js';
import { StorageFaults, type StorageFault } from '../../../server/http/storage-faults.js';
import { WsHub } from '../../../server/http/ws-hub.js';
import { silentLogger } from '../../../server/logging.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-corrupt-db-'));
const damaged = path.join(dir, 'damaged.db');
const notADb = path.join(dir, 'not-a-db.db');
const reports: Array<{ fault: StorageFault; detail: string }> = [];
let url: string;
let close: () => Promise<void>;

/** A database whose table pages are overwritten with garbage, the header left intact. */
function makeDamaged(file: string): void {
  const db = new Database(file);
  db.exec('CREATE TABLE jobs (id INTEGER PRIMARY KEY, body TEXT)');
  const insert = db.prepare('INSERT INTO jobs (body) VALUES (?)');
  db.transaction(() => {
    for (let i = 0; i < 500; i += 1) insert.run('x'.repeat(200));
  })();
  db.close();
  const fd = fs.openSync(file, 'r+');
  const pageSize = 4096;
  for (let page = 2; page < 20; page += 1) fs.writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, page * pageSize);
  fs.closeSync(fd);
}

beforeAll(async () => {
  makeDamaged(damaged);
  fs.writeFileSync(notADb, Buffer.alloc(8192, 0x42));
  const router = express.Router();
  router.get('/api/read/:which', (req, res) => {
    const db = new Database(req.params.which === 'damaged' ? damaged : notADb);
    try {
      res.json(db.prepare('SELECT COUNT(*) AS n, SUM(LENGTH(body)) AS bytes FROM jobs').get());
    } finally {
      db.close();
    }
  });
  const hub = new WsHub(silentLogger);
  const { server } = createHttpServer({
    logger: silentLogger,
    auth: new Authenticator(new SessionSigner(Buffer.alloc(32, 1), () => 'k'), new KeyLimiter()),
    hosts: {},
    maintenance: new Maintenance(),
    hub,
    greeting: () => ({ version: 't', engine: { mode: 'standin', status: 'stopped', restarts: 0, lastError: null, errorLines: [] }, maintenance: false, time_zone: 'Europe/Rome' }),
    routers: [router],
    storage: new StorageFaults({ dataDir: dir, dbFile: damaged, onFault: (fault, detail) => reports.push({ fault, detail }) }),
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => {
    hub.close();
    return new Promise((r) => server.close(() => r()));
  };
});

afterAll(async () => {
  await close?.();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('a damaged database', () => {
  it('answers a 500 naming the file and the way out, reported once', async () => {
    for (const which of ['damaged', 'damaged', 'not-a-db']) {
      const res = await fetch(`${url}/api/read/${which}`, { headers: { 'X-API-Key': 'k' } });
      expect(res.status).toBe(500);
      const { detail } = (await res.json()) as { detail: string };
      expect(detail).toContain(damaged);
      expect(detail).toMatch(which === 'damaged' ? /SQLITE_CORRUPT/ : /SQLITE_NOTADB/);
      expect(detail).toMatch(/restore it from a backup/);
      expect(detail).not.toMatch(/Internal server error/);
    }
    expect(reports).toHaveLength(1);
    expect(reports[0]!.fault.kind).toBe('corrupt');
  });
});

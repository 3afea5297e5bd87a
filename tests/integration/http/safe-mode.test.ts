/**
 * Studio started on a damaged database (a real `npm start` process): a file that is not a
 * database used to stop it with a raw stack trace on stderr, a corrupt page let it start and
 * answer bare 500s. Now it starts in safe mode: every page says what is wrong and how to restore,
 * `/api/*` answers 503 with the same words, a copy of the damaged file is kept (and the file
 * itself left as it was), and the log and `events.jsonl` record it. Other start failures print
 * which file and the fix, without a stack trace, which goes to the log.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../../server/config.js';
import { openDatabase } from '../../../server/db/database.js';
import { freePort } from '../../helpers/ports.js';
import { startStudioProcess, type StudioProcess } from '../../helpers/studio-process.js';
import { TEST_API_KEY } from '../../helpers/studio.js';

let dir: string;
let app: StudioProcess | null = null;
afterEach(async () => {
  await app?.stop();
  app = null;
  fs.rmSync(dir, { recursive: true, force: true });
});

function dataDir(): { dir: string; db: string } {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-safe-mode-'));
  fs.mkdirSync(path.join(dir, 'db'));
  return { dir, db: path.join(dir, 'db', 'studio.db') };
}

const env = () => ({ STUDIO_DIR: dir, ENGINE_MODE: 'external', ENGINE_PORT: '9' });
const safeModeReady = { ready: (res: Response) => res.status === 503 };

/** A Studio database with a few rows, then one of its pages overwritten (a bad sector, a torn copy). */
function corruptPage(db: string): void {
  const made = openDatabase(db);
  const insert = made.prepare("INSERT INTO jobs (prompt_id, status, created_ms, params) VALUES (?, 'completed', ?, ?)");
  for (let i = 0; i < 300; i++) insert.run(`p${i}`, i, JSON.stringify({ prompt: 'x'.repeat(400) }));
  made.pragma('wal_checkpoint(TRUNCATE)');
  made.close();
  const fd = fs.openSync(db, 'r+');
  const pageSize = 4096;
  const pages = fs.fstatSync(fd).size / pageSize;
  fs.writeSync(fd, Buffer.alloc(pageSize, 0xab), 0, pageSize, Math.floor(pages / 2) * pageSize);
  fs.closeSync(fd);
}

async function expectSafeMode(db: string, before: Buffer): Promise<void> {
  const health = await fetch(`${app!.url}/api/health`);
  expect(health.status).toBe(503);
  const detail = ((await health.json()) as { detail: string }).detail;
  expect(detail).toContain(`Studio's database ${db} is damaged`);
  expect(detail).toMatch(/safe mode/);
  expect(detail).toMatch(/How to restore: 1\. Stop Studio\./);
  // Any API route, with or without the key, says the same.
  const jobs = await app!.api('/api/jobs');
  expect(jobs.status).toBe(503);
  expect(((await jobs.json()) as { detail: string }).detail).toBe(detail);

  const page = await fetch(`${app!.url}/home`);
  expect(page.status).toBe(503);
  expect(page.headers.get('content-type')).toMatch(/text\/html/);
  const html = await page.text();
  expect(html).toContain('Studio is in safe mode');
  expect(html).toContain('.recover');

  // The damaged file is untouched and a copy of it sits beside it.
  expect(fs.readFileSync(db).equals(before)).toBe(true);
  const copies = fs.readdirSync(path.dirname(db)).filter((f) => /^studio\.db\.broken-[0-9a-f]{12}$/.test(f));
  expect(copies).toHaveLength(1);
  expect(fs.readFileSync(path.join(path.dirname(db), copies[0]!)).equals(before)).toBe(true);
  expect(detail).toContain(`A copy of the damaged file was kept as ${path.join(path.dirname(db), copies[0]!)}`);

  // Recorded for later: the log (with the stack) and an event the Events page shows once Studio runs again.
  const events = fs.readFileSync(path.join(dir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; severity: string; data: { file: string } });
  expect(events.at(-1)).toMatchObject({ type: 'system.safe_mode', severity: 'error', data: { file: db } });
  expect(fs.readFileSync(path.join(dir, 'logs', 'server.log'), 'utf8')).toContain(`Studio's database ${db} is damaged`);
  // The console explains; it shows no stack trace.
  expect(app!.output()).toMatch(/started in SAFE MODE/);
  expect(app!.output()).not.toMatch(/^\s+at /m);
}

describe('a damaged database at boot', () => {
  it('a file that is not a database: safe mode, not a stack trace', async () => {
    const { db } = dataDir();
    fs.writeFileSync(db, 'these are not the bytes of a SQLite database\n'.repeat(200));
    const before = fs.readFileSync(db);
    app = await startStudioProcess(env(), safeModeReady);
    await expectSafeMode(db, before);
  }, 60_000);

  it('a database with a corrupt page: safe mode, not a silent start', async () => {
    const { db } = dataDir();
    corruptPage(db);
    const before = fs.readFileSync(db);
    app = await startStudioProcess(env(), safeModeReady);
    await expectSafeMode(db, before);
    // A second start on the same damaged file keeps the one copy it has.
    await app.stop();
    app = await startStudioProcess(env(), safeModeReady);
    expect(fs.readdirSync(path.dirname(db)).filter((f) => f.startsWith('studio.db.broken-'))).toHaveLength(1);
  }, 90_000);
});

describe('a start that fails', () => {
  it('names the file and the fix on the console, and leaves the stack trace to the log', async () => {
    const { db } = dataDir();
    // A container bind mount of a file that did not exist makes a folder in its place.
    fs.mkdirSync(db);
    const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(APP_ROOT, 'server', 'main.ts')], {
      cwd: APP_ROOT,
      env: { ...process.env, ...env(), STUDIO_PORT: String(await freePort()), STUDIO_HOST: '127.0.0.1', API_KEY: TEST_API_KEY },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`Studio cannot start: ${db} is a folder where Studio expects a file`);
    expect(run.stderr).toContain('Move the folder away');
    expect(run.stderr).toContain(`The full error is in ${path.join(dir, 'logs', 'server.log')}`);
    expect(run.stderr + run.stdout).not.toMatch(/^\s+at /m);
    expect(fs.readFileSync(path.join(dir, 'logs', 'server.log'), 'utf8')).toMatch(/Studio could not start[\s\S]*EISDIR[\s\S]*\n\s+at /);
  }, 60_000);
});

/**
 * `GET/PUT /api/admin/system/first-run` on a real Studio: the stored display and ticks survive a
 * restart, a bad body is a 400 with a detail, a loopback-only Studio says why a phone cannot
 * reach it, and a sign-in by another device (a row the login route writes) is seen while one by
 * this machine is not.
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FirstRunReport } from '../../../server/contracts/first-run.contract.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-first-run-'));
let studio: TestStudio | undefined;

afterAll(async () => {
  await studio?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function report(s: TestStudio): Promise<FirstRunReport> {
  const res = await s.api('/api/admin/system/first-run');
  expect(res.status).toBe(200);
  return (await res.json()) as FirstRunReport;
}

function put(s: TestStudio, body: unknown): Promise<Response> {
  return s.api('/api/admin/system/first-run', { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
}

describe('first-run guide state', () => {
  it('starts shown with nothing ticked, and says why a phone cannot reach a loopback-only Studio', async () => {
    studio = await startTestStudio({ dir });
    const first = await report(studio);
    expect(first.display).toBe('auto');
    expect(first.ticked).toEqual([]);
    expect(first.lan.urls).toEqual([]);
    expect(first.lan.reason).toMatch(/listens on this computer only .*STUDIO_HOST=127\.0\.0\.1/);
    expect(first.other_device_signed_in).toBe(false);
  });

  it('does not count a sign-in from this machine as another device', async () => {
    await studio!.login();
    expect((await report(studio!)).other_device_signed_in).toBe(false);
    const db = new Database(path.join(dir, 'db', 'studio.db'), { readonly: true });
    try {
      const row = db.prepare("SELECT value FROM settings WHERE key = 'auth.sign_in_devices'").get() as { value: string } | undefined;
      expect(JSON.parse(row!.value)).toEqual(['this machine']);
    } finally {
      db.close();
    }
  });

  it('sees a sign-in by another device', async () => {
    const db = new Database(path.join(dir, 'db', 'studio.db'));
    try {
      db.prepare("UPDATE settings SET value = ? WHERE key = 'auth.sign_in_devices'").run(JSON.stringify(['192.168.1.77', 'this machine']));
    } finally {
      db.close();
    }
    expect((await report(studio!)).other_device_signed_in).toBe(true);
  });

  it('stores dismissal and ticks across a restart, and refuses a bad body', async () => {
    const res = await put(studio!, { display: 'dismissed', ticked: ['phone', 'phone'] });
    expect(res.status).toBe(200);
    expect(((await res.json()) as FirstRunReport).ticked).toEqual(['phone']);
    for (const bad of [{ display: 'gone' }, { ticked: ['engine'] }, { extra: true }, { ticked: 'phone' }]) {
      const answer = await put(studio!, bad);
      expect(answer.status, JSON.stringify(bad)).toBe(400);
      expect(((await answer.json()) as { detail: unknown }).detail).toBeTruthy();
    }
    await studio!.stop();
    studio = await startTestStudio({ dir });
    const after = await report(studio);
    expect(after.display).toBe('dismissed');
    expect(after.ticked).toEqual(['phone']);
    await put(studio, { display: 'open' });
    expect((await report(studio)).display).toBe('open');
  });
});

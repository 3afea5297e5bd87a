/**
 * `GET /api/admin/system/browser-extension`: the extension folder as a ZIP, 404 when missing.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../../server/config.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function studio(env: Record<string, string> = {}): Promise<TestStudio> {
  const t = await startTestStudio({ env });
  cleanups.push(() => t.stop());
  return t;
}

describe('GET /api/admin/system/browser-extension', () => {
  it('zips every file of the extension folder as an attachment', async () => {
    const t = await studio();
    const res = await t.api('/api/admin/system/browser-extension');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="studio-browser-extension.zip"');
    const zip = path.join(t.dir, 'ext.zip');
    fs.writeFileSync(zip, Buffer.from(await res.arrayBuffer()));
    const listing = spawnSync('unzip', ['-Z1', zip], { encoding: 'utf8' });
    expect(listing.status).toBe(0);
    const source = path.join(APP_ROOT, 'resources', 'browser-extension');
    expect(listing.stdout.trim().split('\n').sort()).toEqual(fs.readdirSync(source).sort());
    const manifest = JSON.parse(spawnSync('unzip', ['-p', zip, 'manifest.json'], { encoding: 'utf8' }).stdout) as { manifest_version: number; background: { service_worker: string } };
    expect(manifest.manifest_version).toBe(3);
    expect(fs.existsSync(path.join(source, manifest.background.service_worker))).toBe(true);
  });

  it('answers 404 {detail} when the folder is missing, and 401 without authentication', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'no-ext-'));
    cleanups.push(() => fs.rmSync(empty, { recursive: true, force: true }));
    const t = await studio({ STUDIO_APP_DIR: empty });
    const res = await t.api('/api/admin/system/browser-extension');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: expect.stringMatching(/browser-extension is missing/) });
    expect((await fetch(`${t.url}/api/admin/system/browser-extension`)).status).toBe(401);
  });
});

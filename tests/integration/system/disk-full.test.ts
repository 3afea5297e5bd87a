/**
 * A full disk (a real tmpfs filled to the last byte, Studio's data directory on it): every write
 * route answers 507 with the free space instead of a bare "Internal server error", one warning
 * event says so (uploads are refused before they are read, with the numbers), and Studio recovers by itself once space is freed — the shared-folder check
 * included, which used to stay "none" until the engine restarted.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeRaw, plantModels, SAMPLE_PNG, SHIPPED_MODELS } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { mountCommand, mountTinyDisk, type TinyDisk } from '../../helpers/tiny-disk.js';

const how = mountCommand();
if ('reason' in how && process.env.CI) throw new Error(`disk-full tests cannot run on CI: ${how.reason}`);
if ('reason' in how) console.warn(`skipping the disk-full tests: ${how.reason}`);

const FULL = /^The disk holding Studio's data is full \((\d+(\.\d)? (bytes|KB|MB|GB)) free\)$/;
const UPLOAD_REFUSED = /^Not enough free disk space for this upload: needs \d+(\.\d)? (bytes|KB|MB), 0 bytes free$/;
const JSON_HEADERS = { 'Content-Type': 'application/json' };

describe.skipIf('reason' in how)('a full disk', () => {
  let disk: TinyDisk;
  let t: TestStudio;

  beforeAll(async () => {
    disk = mountTinyDisk(64);
    t = await startTestStudio({ dir: path.join(disk.dir, 'studio'), startEngine: true, sharedFolderRecheckMs: 100 });
    await t.studio.engineReady();
    plantModels(t.dir, SHIPPED_MODELS);
    await until(() => t.studio.sharedFolders.folders.includes('output'), 'the first shared-folder probe');
  }, 60_000);

  afterAll(async () => {
    await t?.stop();
    disk?.unmount();
  });

  /** The write routes the issue names: execute, upload, settings, env settings, presets. */
  const writes: Record<string, () => Promise<Response>> = {
    execute: () => executeRaw(t.api, 'image-filter', { image: { data: fs.readFileSync(SAMPLE_PNG), name: 'in.png' } }),
    upload: () => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(fs.readFileSync(SAMPLE_PNG))], { type: 'image/png' }), 'photo.png');
      return t.api('/api/run/upload-image', { method: 'POST', body: form });
    },
    settings: () => t.api('/api/admin/settings', { method: 'PUT', headers: JSON_HEADERS, body: JSON.stringify({ max_concurrent: 3 }) }),
    'env settings': () => t.api('/api/admin/settings/env', { method: 'PUT', headers: JSON_HEADERS, body: JSON.stringify({ key: 'HUB_TOKEN', value: 'hf_abc' }) }),
    presets: () =>
      t.api('/api/admin/presets', {
        method: 'POST',
        headers: JSON_HEADERS,
        body: JSON.stringify({ id: `p-${Date.now()}`, workflow: { workflow_id: 'image-filter', params: {} } }),
      }),
  };

  it('answers 507 with the free space on every write route, with one warning event', async () => {
    disk.fill();
    try {
      for (const [name, send] of Object.entries(writes)) {
        const res = await send();
        const body = (await res.json()) as { detail?: string };
        expect({ name, status: res.status }).toEqual({ name, status: 507 });
        // Uploads are refused before they are read, by the free-space guard, with the numbers.
        expect(body.detail).toMatch(name === 'execute' || name === 'upload' ? UPLOAD_REFUSED : FULL);
      }
      const warnings = t.studio.events.list({ types: ['system.disk_full'] });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ severity: 'warning' });
      expect(warnings[0]!.message).toMatch(FULL);
    } finally {
      disk.free();
    }
  }, 60_000);

  it('works again once space is freed, shared folders included', async () => {
    disk.fill();
    try {
      // The engine (re)starts while the disk is full: no marker can be written, so nothing counts as shared.
      expect(await t.studio.sharedFolders.probe()).toEqual([]);
    } finally {
      disk.free();
    }
    await until(() => t.studio.sharedFolders.folders.includes('input') && t.studio.sharedFolders.folders.includes('output'), 'shared folders found again');
    for (const [name, send] of Object.entries(writes)) {
      const res = await send();
      expect({ name, status: res.status, body: res.status === 200 ? null : await res.text() }).toEqual({ name, status: 200, body: null });
    }
  }, 60_000);
});

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 300; i += 1) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

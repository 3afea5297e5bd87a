/**
 * The free-space guard on a real small filesystem (an 8 MB tmpfs holding the data directory): a
 * model download that cannot fit is refused before anything is queued or written, with the
 * numbers, an upload that cannot fit is refused before it is read, and the low-space warning
 * is raised once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DiskReport } from '../../../server/contracts/disk.contract.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { mountCommand, mountTinyDisk, type TinyDisk } from '../../helpers/tiny-disk.js';

const how = mountCommand();
if ('reason' in how && process.env.CI) throw new Error(`free-space tests cannot run on CI: ${how.reason}`);
if ('reason' in how) console.warn(`skipping the free-space tests: ${how.reason}`);

describe.skipIf('reason' in how)('the free-space guard', () => {
  let disk: TinyDisk;
  let t: TestStudio;

  beforeAll(async () => {
    disk = mountTinyDisk(8);
    t = await startTestStudio({ dir: path.join(disk.dir, 'studio') });
  }, 60_000);

  afterAll(async () => {
    await t?.stop();
    disk?.unmount();
  });

  it('refuses a download that cannot fit, with the numbers, before queueing it', async () => {
    const res = await t.api('/api/admin/models/download/sd_xl_base_1.0.safetensors', { method: 'POST' });
    expect(res.status).toBe(507);
    const { detail } = (await res.json()) as { detail: string };
    expect(detail).toMatch(/^Not enough free disk space for downloading sd_xl_base_1\.0\.safetensors: needs 6\.9 GB, \d+(\.\d)? (MB|KB) free$/);
    const status = (await (await t.api('/api/admin/models')).json()) as { categories: Array<{ models: Array<{ file: string; status: string }> }> };
    const entry = status.categories.flatMap((c) => c.models).find((m) => m.file === 'sd_xl_base_1.0.safetensors');
    expect(entry?.status).toBe('not_downloaded');
    expect(fs.existsSync(path.join(t.dir, 'models', 'checkpoints', 'sd_xl_base_1.0.safetensors.part'))).toBe(false);
  });

  it('refuses an upload that cannot fit before reading it, with the numbers', async () => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(12_000_000)], { type: 'image/png' }), 'huge.png');
    const res = await t.api('/api/run/upload-image', { method: 'POST', body: form });
    expect(res.status).toBe(507);
    const { detail } = (await res.json()) as { detail: string };
    expect(detail).toMatch(/^Not enough free disk space for this upload: needs 12\.0 MB, \d+(\.\d)? (MB|KB) free$/);
    expect(fs.readdirSync(path.join(t.dir, 'assets', 'input'))).toEqual([]);
  });

  it('warns once that free space is under the threshold, and the page says so', async () => {
    for (let i = 0; i < 100 && t.studio.events.list({ types: ['disk.low_space'] }).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    const warnings = t.studio.events.list({ types: ['disk.low_space'] });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ severity: 'warning' });
    expect(warnings[0]!.message).toMatch(/^Only \d+(\.\d)? (MB|KB) free for Studio's data \(warning under 10\.0 GB\)$/);
    const report = (await (await t.api('/api/admin/disk')).json()) as DiskReport;
    expect(report.low_space).toBe(true);
    expect(report.volumes[0]!.total_bytes).toBe(8 * 1024 * 1024);
  });
});

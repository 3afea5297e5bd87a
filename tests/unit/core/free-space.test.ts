/** The one free-space guard: one margin, one wording; a download fails with it as `disk_full`. */
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { ensureDownloadSpace } from '../../../server/downloads/download-io.js';
import { spaceShortfall } from '../../../server/free-space.js';

const MB = 1e6;

describe('the free-space guard', () => {
  it('keeps the same margin free for every write it checks', async () => {
    expect(await spaceShortfall(os.tmpdir(), 10 * MB, async () => 20 * MB)).toBe(20 * MB);
    expect(await spaceShortfall(os.tmpdir(), 10 * MB, async () => 40 * MB)).toBeNull();
    expect(await spaceShortfall(os.tmpdir(), 0, async () => 0)).toBeNull();
  });

  it('lets a write through when the volume cannot be asked', async () => {
    expect(await spaceShortfall(os.tmpdir(), 10 * MB, async () => null)).toBeNull();
    expect(await spaceShortfall(os.tmpdir(), 10 * MB, () => Promise.reject(new Error('ENOSYS')))).toBeNull();
  });

  it('stops a download as disk_full in the words every other refusal uses', async () => {
    const err = await ensureDownloadSpace(os.tmpdir(), 10 * MB, 'downloading a.safetensors', async () => 20 * MB).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'disk_full', message: 'Not enough free disk space for downloading a.safetensors: needs 10.0 MB, 20.0 MB free' });
  });
});

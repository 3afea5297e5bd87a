/**
 * Links planted in Studio's folders: serving, thumbnailing, zipping and deleting through them
 * must never reach outside the folder they belong to.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_PNG as SAMPLE_PNG_FILE } from '../../helpers/runner.js';

const SAMPLE_PNG = fs.readFileSync(SAMPLE_PNG_FILE);
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let t: TestStudio;
let outside: string;
let output: string;

beforeAll(async () => {
  t = await startTestStudio();
  output = t.studio.config.paths.assetsOutput;
  outside = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-outside-'));
  fs.writeFileSync(path.join(outside, 'victim.txt'), 'do not delete');
  fs.writeFileSync(path.join(outside, 'private.png'), SAMPLE_PNG);
  fs.mkdirSync(path.join(output, 'job_1'), { recursive: true });
  fs.writeFileSync(path.join(output, 'job_1', 'real.png'), SAMPLE_PNG);
  // The attack: a link to the session secret, and a linked folder, inside the output folder.
  fs.symlinkSync(path.join(t.dir, '.session_secret'), path.join(output, 'job_1', 'secret.png'));
  fs.symlinkSync(outside, path.join(output, 'linked'));
  // A linked file (not a folder) that is a real image outside: a thumbnail must not read it either.
  fs.symlinkSync(path.join(outside, 'private.png'), path.join(output, 'job_1', 'linked.png'));
});
afterAll(async () => {
  await t.stop();
  fs.rmSync(outside, { recursive: true, force: true });
});

describe('links planted in the output folder', () => {
  it('are not served, not even as a thumbnail', async () => {
    expect((await t.api('/api/admin/assets/file?type=outputs&path=job_1/real.png')).status).toBe(200);
    expect((await t.api('/api/admin/assets/file?type=outputs&path=job_1/secret.png')).status).toBe(404);
    expect((await t.api('/api/admin/assets/file?type=outputs&path=linked/private.png')).status).toBe(404);
    expect((await t.api('/api/admin/assets/thumbnail?type=outputs&path=linked/private.png')).status).toBe(404);
    expect((await t.api('/api/admin/assets/thumbnail?type=outputs&path=job_1/real.png')).status).toBe(200);
    expect((await t.api('/api/admin/assets/thumbnail?type=outputs&path=job_1/linked.png')).status).toBe(404);
    expect((await t.api('/api/admin/assets/file?type=outputs&path=job_1/linked.png')).status).toBe(404);
  });

  it('are not listed and not zipped', async () => {
    const listing = JSON.stringify(await (await t.api('/api/admin/assets/outputs')).json());
    expect(listing).toContain('real.png');
    expect(listing).not.toMatch(/secret\.png|private\.png|linked\.png|victim/);
    const zip = Buffer.from(await (await t.api('/api/admin/assets/download?type=outputs')).arrayBuffer());
    expect(zip.includes(Buffer.from('real.png'))).toBe(true);
    expect(zip.includes(Buffer.from('private.png'))).toBe(false);
    expect(zip.includes(fs.readFileSync(path.join(t.dir, '.session_secret')))).toBe(false);
  });

  it('cannot delete a file outside the data directory through a linked folder', async () => {
    const res = await t.api('/api/admin/assets/delete', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ type: 'outputs', files: ['linked/victim.txt'] }),
    });
    const body = (await res.json()) as { deleted: string[]; errors: string[] };
    expect(body.deleted).toEqual([]);
    expect(body.errors[0]).toMatch(/outside/);
    expect(fs.readFileSync(path.join(outside, 'victim.txt'), 'utf8')).toBe('do not delete');
    // Deleting the planted link itself removes only the link.
    const unlink = await t.api('/api/admin/assets/delete', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ type: 'outputs', files: ['linked'] }),
    });
    expect(((await unlink.json()) as { deleted: string[] }).deleted).toEqual(['linked']);
    expect(fs.existsSync(path.join(outside, 'victim.txt'))).toBe(true);
  });
});

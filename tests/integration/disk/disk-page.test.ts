/**
 * The disk page against a real data directory: usage per kind, duplicated model files found by
 * content and replaced by hard links (same inode, both names readable, hashes stored so a second
 * scan reads nothing), and unused files (an orphan partial download, an orphan job folder)
 * listed and deleted only with confirmation.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeleteOrphansResult, DiskReport, DuplicatesReport, LinkResult, OrphansReport } from '../../../server/contracts/disk.contract.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

const JSON_HEADERS = { 'Content-Type': 'application/json' };
const CONTENT = crypto.randomBytes(300_000);
const SDXL = 'models/checkpoints/sd_xl_base_1.0.safetensors';
const COPY = 'models/diffusion_models/sdxl-copy.safetensors';

describe('the disk page', () => {
  let t: TestStudio;
  const at = (rel: string) => path.join(t.dir, rel);
  const plant = (rel: string, data: Buffer | string, ageMs = 0) => {
    fs.mkdirSync(path.dirname(at(rel)), { recursive: true });
    fs.writeFileSync(at(rel), data);
    if (ageMs) fs.utimesSync(at(rel), new Date(Date.now() - ageMs), new Date(Date.now() - ageMs));
  };
  const getJson = async <T>(url: string): Promise<T> => {
    const res = await t.api(url);
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as T;
  };
  const post = (url: string, body: unknown) => t.api(url, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(body) });

  beforeAll(async () => {
    t = await startTestStudio();
    plant(SDXL, CONTENT);
    plant(COPY, CONTENT);
    // Same size, other content: compared by hash, not reported.
    plant('models/loras/same-size.safetensors', crypto.randomBytes(CONTENT.length));
  });

  afterAll(async () => {
    await t?.stop();
  });

  it('reports the volume and the usage by kind, models per folder', async () => {
    const report = await getJson<DiskReport>('/api/admin/disk');
    expect(report.volumes.length).toBeGreaterThan(0);
    expect(report.volumes[0]!.total_bytes).toBeGreaterThan(report.volumes[0]!.free_bytes);
    expect(report.usage.find((row) => row.kind === 'models')).toMatchObject({ bytes: 3 * CONTENT.length, files: 3 });
    expect(report.usage.find((row) => row.kind === 'database')!.bytes).toBeGreaterThan(0);
    expect(report.models_by_folder.map((row) => row.folder).sort()).toEqual(['checkpoints', 'diffusion_models', 'loras']);
  });

  it('finds the duplicate by content, with its catalog entry and workflows', async () => {
    const report = await getJson<DuplicatesReport>('/api/admin/disk/duplicates');
    expect(report.groups).toHaveLength(1);
    const group = report.groups[0]!;
    expect(group.sha256).toBe(crypto.createHash('sha256').update(CONTENT).digest('hex'));
    expect(group.copies.map((copy) => copy.path).sort()).toEqual([SDXL, COPY].sort());
    expect(group.copies.find((copy) => copy.path === SDXL)!.catalog.length).toBe(1);
    expect(group.workflows).toContain('txt2img-sdxl');
    expect(group).toMatchObject({ reclaimable_bytes: CONTENT.length, linkable: true });
    expect(report.files_hashed).toBe(3);
    // The hashes are stored: a second scan reads no file.
    expect((await getJson<DuplicatesReport>('/api/admin/disk/duplicates')).files_hashed).toBe(0);
  });

  it('replaces the copy by a hard link only when confirmed', async () => {
    const { groups } = await getJson<DuplicatesReport>('/api/admin/disk/duplicates');
    const sha256 = groups[0]!.sha256;
    const refused = await post('/api/admin/disk/duplicates/link', { sha256 });
    expect(refused.status).toBe(400);
    expect(fs.statSync(at(SDXL)).ino).not.toBe(fs.statSync(at(COPY)).ino);

    const res = await post('/api/admin/disk/duplicates/link', { sha256, confirm: true });
    expect(res.status).toBe(200);
    const result = (await res.json()) as LinkResult;
    expect(result.linked).toHaveLength(1);
    expect(result.freed_bytes).toBe(CONTENT.length);
    expect(fs.statSync(at(SDXL)).ino).toBe(fs.statSync(at(COPY)).ino);
    expect(fs.statSync(at(SDXL)).nlink).toBe(2);
    expect(fs.readFileSync(at(SDXL)).equals(CONTENT)).toBe(true);
    expect(fs.readFileSync(at(COPY)).equals(CONTENT)).toBe(true);
    expect(t.studio.events.list({ types: ['disk.duplicates.linked'] })).toHaveLength(1);

    const after = await getJson<DuplicatesReport>('/api/admin/disk/duplicates');
    expect(after.groups).toEqual([]);
    const usage = await getJson<DiskReport>('/api/admin/disk');
    expect(usage.usage.find((row) => row.kind === 'models')!.bytes).toBe(2 * CONTENT.length);
    expect((await post('/api/admin/disk/duplicates/link', { sha256, confirm: true })).status).toBe(404);
  });

  it('lists an orphan partial download and an orphan job folder, and deletes them only when confirmed', async () => {
    plant('models/checkpoints/abandoned.safetensors.part', Buffer.alloc(4096, 1));
    plant('models/checkpoints/abandoned.safetensors.part.meta.json', '{}');
    const folder = 'assets/output/gone_20260101-000000_abcdef';
    plant(`${folder}/final/out.png`, Buffer.alloc(2048, 2), 2 * 3_600_000);
    fs.utimesSync(at(folder), new Date(Date.now() - 2 * 3_600_000), new Date(Date.now() - 2 * 3_600_000));
    // A fresh folder may still be waiting for its job record: not listed.
    plant('assets/output/fresh_20260101-000000_abcdef/final/out.png', 'x');

    const report = await getJson<OrphansReport>('/api/admin/disk/orphans');
    const byPath = new Map(report.orphans.map((orphan) => [orphan.path, orphan]));
    expect(byPath.get('models/checkpoints/abandoned.safetensors.part')).toMatchObject({ kind: 'partial_download', size_bytes: 4096 });
    expect(byPath.get(folder)).toMatchObject({ kind: 'orphan_job_folder', size_bytes: 2048 });
    expect(byPath.get(folder)!.age_days).toBe(0);
    expect(byPath.get(COPY)).toMatchObject({ kind: 'unused_model' });
    expect(byPath.has(SDXL)).toBe(false);
    expect(byPath.has('assets/output/fresh_20260101-000000_abcdef')).toBe(false);

    const paths = ['models/checkpoints/abandoned.safetensors.part', folder];
    expect((await post('/api/admin/disk/orphans/delete', { paths })).status).toBe(400);
    expect(fs.existsSync(at(folder))).toBe(true);

    const res = await post('/api/admin/disk/orphans/delete', { paths: [...paths, SDXL, '../outside', 'db/studio.db'], confirm: true });
    expect(res.status).toBe(200);
    const result = (await res.json()) as DeleteOrphansResult;
    expect(result.deleted.sort()).toEqual([...paths].sort());
    expect(result.refused.sort()).toEqual(['../outside', 'db/studio.db', SDXL].sort());
    expect(result.freed_bytes).toBe(4096 + 2048);
    expect(fs.existsSync(at(folder))).toBe(false);
    expect(fs.existsSync(at('models/checkpoints/abandoned.safetensors.part'))).toBe(false);
    expect(fs.existsSync(at('models/checkpoints/abandoned.safetensors.part.meta.json'))).toBe(false);
    expect(fs.existsSync(at(SDXL))).toBe(true);
    const events = t.studio.events.list({ types: ['disk.orphans.deleted'] });
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ deleted: expect.arrayContaining(paths), freed_bytes: 6144 });
  });

  it('answers 400 for a bad body or query', async () => {
    expect((await post('/api/admin/disk/duplicates/link', { sha256: 'nope', confirm: true })).status).toBe(400);
    expect((await post('/api/admin/disk/orphans/delete', { paths: [], confirm: true })).status).toBe(400);
    expect((await t.api('/api/admin/disk/orphans?input_days=0')).status).toBe(400);
  });
});

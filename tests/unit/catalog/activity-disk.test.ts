import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ActivityLog } from '../../../server/catalog/activity-log.js';
import { DiskUsage } from '../../../server/catalog/disk-usage.js';

let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
});

afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('ActivityLog', () => {
  it("keeps the newest lines with HH:MM:SS times on the box's clock, and the instant with its offset", () => {
    const at = new Date('2026-07-01T10:11:12Z');
    const time = at.toTimeString().slice(0, 8);
    const log = new ActivityLog(2, () => at);
    log.info('one');
    log.ok('two');
    log.error('three');
    expect(log.list()).toEqual([
      { time, at: '2026-07-01T12:11:12.000+02:00', message: 'two', level: 'ok' },
      { time, at: '2026-07-01T12:11:12.000+02:00', message: 'three', level: 'error' },
    ]);
    log.clear();
    expect(log.list()).toEqual([]);
  });
});

describe('DiskUsage', () => {
  it('measures the models folder, caches for the TTL and can be invalidated', async () => {
    const models = path.join(dir, 'models');
    fs.mkdirSync(path.join(models, 'a', 'b'), { recursive: true });
    fs.writeFileSync(path.join(models, 'a', 'x.bin'), Buffer.alloc(100));
    fs.writeFileSync(path.join(models, 'a', 'b', 'y.bin'), Buffer.alloc(23));
    let now = 0;
    const disk = new DiskUsage({ modelsDir: models, ttlMs: 60_000, now: () => now });
    const first = await disk.get();
    expect(first.models_bytes).toBe(123);
    expect(first.free_bytes).toBeGreaterThan(0);
    fs.writeFileSync(path.join(models, 'z.bin'), Buffer.alloc(7));
    now = 59_000;
    expect((await disk.get()).models_bytes).toBe(123);
    now = 60_000;
    expect((await disk.get()).models_bytes).toBe(130);
    fs.rmSync(path.join(models, 'z.bin'));
    disk.invalidate();
    expect((await disk.get()).models_bytes).toBe(123);
  });

  it('counts a hard-linked model file once, as the disk page does (its duplicate replacement links them)', async () => {
    const models = path.join(dir, 'models');
    fs.mkdirSync(path.join(models, 'loras'), { recursive: true });
    fs.writeFileSync(path.join(models, 'x.bin'), Buffer.alloc(100));
    fs.linkSync(path.join(models, 'x.bin'), path.join(models, 'loras', 'x.bin'));
    expect((await new DiskUsage({ modelsDir: models }).get()).models_bytes).toBe(100);
  });
});

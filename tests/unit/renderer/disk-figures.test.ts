import { describe, expect, it } from 'vitest';
import { usageByKind, volumeFigures } from '../../../renderer/src/components/disk/disk-figures.js';

describe('the Disk page figures', () => {
  it('shows what the file system keeps for itself, so used, reserved and free add up to the size', () => {
    // 252 GB in all, 28 GB used, 73.9 GB free to Studio: the rest is reserved.
    const f = volumeFigures({ total_bytes: 252e9, used_bytes: 28e9, free_bytes: 73.9e9 });
    expect(f.used + f.reserved + f.free).toBe(f.total);
    expect(f.reserved).toBeCloseTo(150.1e9, -3);
    expect(f.usedPct + f.reservedPct + (f.free / f.total) * 100).toBeCloseTo(100, 6);
    expect(volumeFigures({ total_bytes: 0, used_bytes: 0, free_bytes: 0 })).toMatchObject({ usedPct: 0, reservedPct: 0 });
  });

  it('gives each kind one row, its folders listed once and its sizes summed', () => {
    const rows = usageByKind([
      { kind: 'models', path: 'models', bytes: 10, files: 1 },
      { kind: 'logs', path: 'logs', bytes: 5, files: 2 },
      { kind: 'logs', path: 'events.jsonl', bytes: 7, files: 1 },
      { kind: 'caches', path: 'cache/pip', bytes: 0, files: 0 },
      { kind: 'caches', path: 'cache/uv', bytes: 3, files: 4 },
    ]);
    expect(rows).toEqual([
      { kind: 'models', paths: ['models'], bytes: 10, files: 1 },
      { kind: 'logs', paths: ['logs', 'events.jsonl'], bytes: 12, files: 3 },
      { kind: 'caches', paths: ['cache/pip', 'cache/uv'], bytes: 3, files: 4 },
    ]);
  });
});

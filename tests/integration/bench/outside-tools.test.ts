/**
 * `npm run bench` on a machine without an outside tool a benchmark compares against
 * (`vipsthumbnail`): that comparison skips, saying why, and the rest of the benchmark still runs
 * (it used to throw and end the whole run).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { APP_ROOT } from '../../../server/config.js';
import { run as galleryBench } from '../../bench/gallery.bench.js';

const savedPath = process.env.PATH;
afterEach(() => {
  process.env.PATH = savedPath;
  vi.restoreAllMocks();
});

describe('benchmarks without their outside tool', () => {
  it('skip the comparison with the reason and run the rest', async () => {
    // The machine as if libvips' CLI were not installed.
    process.env.PATH = (savedPath ?? '')
      .split(path.delimiter)
      .filter((dir) => dir && !fs.existsSync(path.join(dir, 'vipsthumbnail')))
      .join(path.delimiter);
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void lines.push(args.join(' ')));
    await galleryBench(APP_ROOT, 2, 20);
    expect(lines[0]).toBe('gallery-thumbnails: skipped (vipsthumbnail is not installed; Debian: apt-get install libvips-tools)');
    expect(lines.some((l) => l.startsWith('gallery-listing 20 items'))).toBe(true);
  }, 60_000);
});

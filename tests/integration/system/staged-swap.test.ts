/**
 * The all-or-nothing swap behind updates, on real files: a rename that fails after some targets
 * were already swapped puts every one of them back and leaves no staging copies.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyStaged, type SwapTarget } from '../../../server/system/staged-swap.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tree(): { root: string; targets: SwapTarget[] } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'swap-'));
  dirs.push(root);
  fs.mkdirSync(path.join(root, 'server'));
  fs.writeFileSync(path.join(root, 'server', 'main.js'), 'old server');
  fs.mkdirSync(path.join(root, 'catalogs'));
  fs.writeFileSync(path.join(root, 'catalogs', 'models.json'), 'old catalog');
  const targets: SwapTarget[] = [
    {
      target: path.join(root, 'server'),
      build: async (staging) => {
        await fsp.mkdir(staging);
        await fsp.writeFile(path.join(staging, 'main.js'), 'new server');
      },
    },
    { target: path.join(root, 'catalogs', 'models.json'), build: (staging) => fsp.writeFile(staging, 'new catalog') },
    { target: path.join(root, 'fresh.txt'), build: (staging) => fsp.writeFile(staging, 'new file') },
  ];
  return { root, targets };
}

const listing = (root: string) => [...fs.readdirSync(root), ...fs.readdirSync(path.join(root, 'catalogs'))].sort();

describe('applyStaged', () => {
  it('swaps every target in and keeps the backups of this swap only', async () => {
    const { root, targets } = tree();
    await applyStaged(targets, { id: 'one' });
    expect(fs.readFileSync(path.join(root, 'server', 'main.js'), 'utf8')).toBe('new server');
    expect(fs.readFileSync(path.join(root, 'catalogs', 'models.json'), 'utf8')).toBe('new catalog');
    expect(fs.readFileSync(path.join(root, 'fresh.txt'), 'utf8')).toBe('new file');
    expect(fs.readFileSync(path.join(root, '.server.backup-one', 'main.js'), 'utf8')).toBe('old server');
    await applyStaged(targets, { id: 'two' });
    expect(listing(root).filter((n) => n.includes('backup'))).toEqual(['.fresh.txt.backup-two', '.models.json.backup-two', '.server.backup-two']);
  });

  it('puts everything back when a rename fails after the first target was swapped', async () => {
    const { root, targets } = tree();
    const before = listing(root);
    let calls = 0;
    const rename = async (from: string, to: string) => {
      // 1: server → backup, 2: staging → server, 3: models.json → backup (fails).
      if (++calls === 3) throw Object.assign(new Error('EIO: simulated disk error'), { code: 'EIO' });
      await fsp.rename(from, to);
    };
    await expect(applyStaged(targets, { id: 'x', rename })).rejects.toThrow(/simulated disk error/);
    expect(fs.readFileSync(path.join(root, 'server', 'main.js'), 'utf8')).toBe('old server');
    expect(fs.readFileSync(path.join(root, 'catalogs', 'models.json'), 'utf8')).toBe('old catalog');
    expect(fs.existsSync(path.join(root, 'fresh.txt'))).toBe(false);
    expect(listing(root)).toEqual(before);
  });

  it('discards the staging copies when building one fails', async () => {
    const { root, targets } = tree();
    const before = listing(root);
    const failing: SwapTarget = { target: path.join(root, 'late.txt'), build: () => Promise.reject(new Error('cannot build')) };
    await expect(applyStaged([...targets, failing], { id: 'y' })).rejects.toThrow(/cannot build/);
    expect(listing(root)).toEqual(before);
    expect(fs.readFileSync(path.join(root, 'server', 'main.js'), 'utf8')).toBe('old server');
  });
});

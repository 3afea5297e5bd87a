/**
 * The one temp-and-rename write of Studio's small files: the new content or the old, never half,
 * and no temp file left when the write fails.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../../server/fs-durable.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-fs-durable-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('writeFileAtomic', () => {
  it('makes the folder and replaces the file whole', async () => {
    const file = path.join(dir, 'new', 'a.json');
    await writeFileAtomic(file, '{"v":1}');
    await writeFileAtomic(file, '{"v":2}');
    expect(fs.readFileSync(file, 'utf8')).toBe('{"v":2}');
    expect(fs.readdirSync(path.dirname(file))).toEqual(['a.json']);
  });

  it('leaves no temp file when the rename is refused', async () => {
    // A folder where the file should go: the temp is written, the rename onto it fails.
    const target = path.join(dir, 'taken');
    fs.mkdirSync(path.join(target, 'inside'), { recursive: true });
    await expect(writeFileAtomic(target, 'x')).rejects.toThrow();
    expect(fs.readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CatalogEntry, CatalogFile } from '../../../server/contracts/catalog.contract.js';
import { CatalogFileError, CatalogStore } from '../../../server/catalog/catalog.store.js';

let dir: string;
let models: CatalogStore;
let loras: CatalogStore;

const entry = (file: string): CatalogEntry => ({ name: file, file, dest: 'loras', size_gb: 0.1, tags: [], source: 'modelhub', modelhub_version_id: '1' });
const catalog = (category: string, entries: CatalogEntry[]): CatalogFile => ({ version: 3, date: '2026-01-01 00:00', categories: [{ id: category, name: category, models: entries }] });
const onDisk = (name: string) => JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as CatalogFile;
const files = (c: CatalogFile) => c.categories.flatMap((category) => category.models.map((m) => m.file));

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
  fs.writeFileSync(path.join(dir, 'models.json'), JSON.stringify(catalog('loras', [entry('move.safetensors')])));
  fs.writeFileSync(path.join(dir, 'loras.json'), JSON.stringify(catalog('sdxl_loras', [entry('kept.safetensors')])));
  models = new CatalogStore({ file: path.join(dir, 'models.json') });
  loras = new CatalogStore({ file: path.join(dir, 'loras.json') });
  await Promise.all([models.load(), loras.load()]);
});

afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('CatalogStore.updateTogether', () => {
  it('writes both catalogs as one change, both versions bumped, no temp file left', async () => {
    await loras.updateTogether(models, (mine, theirs) => {
      const moved = theirs.categories[0]!.models.pop()!;
      mine.categories[0]!.models.push(moved);
    });
    expect(files(onDisk('loras.json'))).toEqual(['kept.safetensors', 'move.safetensors']);
    expect(files(onDisk('models.json'))).toEqual([]);
    expect([onDisk('loras.json').version, onDisk('models.json').version]).toEqual([4, 4]);
    expect(files(loras.get())).toEqual(['kept.safetensors', 'move.safetensors']);
    expect(fs.readdirSync(dir).sort()).toEqual(['loras.json', 'models.json']);
  });

  it('writes neither when the change is invalid in one of them or the mutator throws', async () => {
    const before = { loras: fs.readFileSync(path.join(dir, 'loras.json'), 'utf8'), models: fs.readFileSync(path.join(dir, 'models.json'), 'utf8') };
    await expect(
      loras.updateTogether(models, (mine, theirs) => {
        mine.categories[0]!.models.push(entry('x.safetensors'));
        theirs.categories[0]!.models.push(entry('move.safetensors'));
      }),
    ).rejects.toBeInstanceOf(CatalogFileError);
    await expect(
      loras.updateTogether(models, () => {
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    expect(fs.readFileSync(path.join(dir, 'loras.json'), 'utf8')).toBe(before.loras);
    expect(fs.readFileSync(path.join(dir, 'models.json'), 'utf8')).toBe(before.models);
    expect(files(loras.get())).toEqual(['kept.safetensors']);
    expect(fs.readdirSync(dir).sort()).toEqual(['loras.json', 'models.json']);
  });
});

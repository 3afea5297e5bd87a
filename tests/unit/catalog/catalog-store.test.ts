import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { llmCatalogFileSchema, type CatalogEntry, type CatalogFile } from '../../../server/contracts/catalog.contract.js';
import { CatalogFileError, CatalogStore, seedCatalogs } from '../../../server/catalog/catalog.store.js';
import { minuteStamp } from '../../../server/time.js';

let dir: string;
let file: string;

const entry = (file: string, over: Partial<CatalogEntry> = {}): CatalogEntry => ({
  name: file,
  file,
  dest: 'checkpoints',
  size_gb: 1,
  tags: [],
  source: 'repohost',
  hosted_repo: 'owner/repo',
  ...over,
});

const baseCatalog = (): CatalogFile => ({
  version: 7,
  date: '2026-01-01 00:00',
  categories: [
    { id: 'checkpoints', name: 'Checkpoints', models: [entry('a.safetensors'), entry('b.safetensors')] },
    { id: 'vae', name: 'VAE', models: [entry('v.safetensors', { dest: 'vae' })] },
  ],
});

const onDisk = (): CatalogFile => JSON.parse(fs.readFileSync(file, 'utf8')) as CatalogFile;
const files = (catalog: CatalogFile) => catalog.categories.flatMap((category) => category.models.map((m) => m.file));

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
  file = path.join(dir, 'models.json');
  fs.writeFileSync(file, JSON.stringify(baseCatalog()));
});

afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('CatalogStore', () => {
  it('loads, serves the catalog from memory and finds entries by file', async () => {
    const store = new CatalogStore({ file });
    await store.load();
    expect(store.get().version).toBe(7);
    expect(store.findEntry('v.safetensors')?.category.id).toBe('vae');
    expect(store.findEntry('missing.safetensors')).toBeNull();
  });

  it('reads the file on first use, not when it is made, and then serves it from memory', () => {
    fs.rmSync(file);
    const store = new CatalogStore({ file });
    // Made before the file exists (Studio seeds it after building its modules): nothing read yet.
    fs.writeFileSync(file, JSON.stringify(baseCatalog()));
    expect(store.isLoaded()).toBe(true);
    expect(store.get().version).toBe(7);
    fs.writeFileSync(file, JSON.stringify({ ...baseCatalog(), version: 8 }));
    expect(store.findEntry('a.safetensors')).not.toBeNull();
    expect(store.get().version).toBe(7);
  });

  it('reports a file that fails its first read once, stays not loaded, and recovers on load()', async () => {
    fs.writeFileSync(file, '{"version": 1, "categ');
    const errors: Error[] = [];
    const store = new CatalogStore({ file, onFirstReadError: (err) => errors.push(err) });
    expect(store.isLoaded()).toBe(false);
    expect(() => store.get()).toThrow(CatalogFileError);
    expect(store.isLoaded()).toBe(false);
    expect(errors.map((err) => err.message)).toEqual([expect.stringMatching(/not valid JSON/)]);
    fs.rmSync(file);
    const missing = new CatalogStore({ file, onFirstReadError: (err) => errors.push(err) });
    expect(missing.isLoaded()).toBe(false);
    expect(errors[1]).toBeInstanceOf(CatalogFileError);
    expect(errors[1]!.message).toMatch(/cannot read catalog/);
    // The user fixed the file: load() reads it again.
    fs.writeFileSync(file, JSON.stringify(baseCatalog()));
    await store.load();
    expect(store.get().version).toBe(7);
    expect(errors).toHaveLength(2);
  });

  it('applies 30 concurrent updates without losing one, and the file always parses', async () => {
    const N = 30;
    const store = new CatalogStore({ file });
    await store.load();
    let reading = true;
    let reads = 0;
    // Each update is a durable write (temp file, fsync, rename, directory fsync): 30 of them test
    // the queue as well as 100 did, without minutes of fsyncs on a busy disk. The reader yields a
    // millisecond between reads instead of spinning on setImmediate beside the writes it checks.
    const reader = (async () => {
      while (reading) {
        const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as CatalogFile;
        expect(parsed.categories.length).toBe(2);
        reads += 1;
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    })();
    const updates = Array.from({ length: N }, (_, i) =>
      store.update((draft) => {
        draft.categories[0]!.models.push(entry(`new-${i}.safetensors`));
        return i;
      }),
    );
    const results = await Promise.all(updates);
    reading = false;
    await reader;
    expect(results).toEqual(Array.from({ length: N }, (_, i) => i));
    expect(reads).toBeGreaterThan(0);
    const saved = onDisk();
    expect(files(saved)).toHaveLength(N + 3);
    for (let i = 0; i < N; i += 1) expect(files(saved)).toContain(`new-${i}.safetensors`);
    expect(saved.version).toBe(7 + N);
    expect(store.get()).toEqual(saved);
    expect(fs.readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('bumps version and date when entries are added or removed, not when they are edited or moved', async () => {
    const store = new CatalogStore({ file, now: () => new Date('2026-06-15T10:30:00Z') });
    await store.load();
    await store.update((draft) => {
      draft.categories[0]!.models[0]!.name = 'renamed';
      draft.categories[1]!.models.push(draft.categories[0]!.models.pop()!);
    });
    expect(onDisk().version).toBe(7);
    expect(onDisk().date).toBe('2026-01-01 00:00');
    expect(onDisk().categories[0]!.models[0]!.name).toBe('renamed');

    await store.update((draft) => {
      draft.categories[0]!.models.push(entry('c.safetensors'));
    });
    expect(onDisk().version).toBe(8);
    expect(onDisk().date).toBe('2026-06-15 12:30'); // Rome summer time

    await store.update((draft) => {
      draft.categories[1]!.models = draft.categories[1]!.models.filter((m) => m.file !== 'v.safetensors');
    });
    expect(onDisk().version).toBe(9);
    expect(files(onDisk())).not.toContain('v.safetensors');
  });

  it('keeps a version the mutator set itself (a sync that replaces the catalog)', async () => {
    const store = new CatalogStore({ file });
    await store.load();
    await store.update((draft) => {
      draft.version = 42;
      draft.categories = [{ id: 'x', name: 'X', models: [entry('z.safetensors')] }];
    });
    expect(onDisk().version).toBe(42);
  });

  it('leaves memory and disk untouched when a mutator throws or produces an invalid catalog, and keeps working', async () => {
    const store = new CatalogStore({ file });
    await store.load();
    const before = fs.readFileSync(file, 'utf8');
    await expect(
      store.update((draft) => {
        draft.categories[0]!.models.push(entry('half.safetensors'));
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    await expect(
      store.update((draft) => {
        draft.categories[1]!.models.push(entry('a.safetensors'));
      }),
    ).rejects.toThrow(/duplicate file/);
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
    expect(store.findEntry('half.safetensors')).toBeNull();
    await store.update((draft) => {
      draft.categories[0]!.models.push(entry('ok.safetensors'));
    });
    expect(files(onDisk())).toContain('ok.safetensors');
  });

  it('never writes the live status fields', async () => {
    const store = new CatalogStore({ file });
    await store.update((draft) => {
      Object.assign(draft.categories[0]!.models[0]!, { status: 'present', on_disk_bytes: 12 });
    });
    const written = onDisk().categories[0]!.models[0] as Record<string, unknown>;
    expect(written.status).toBeUndefined();
    expect(written.on_disk_bytes).toBeUndefined();
  });

  it('hands out a frozen catalog so callers cannot change it behind the store', async () => {
    const store = new CatalogStore({ file });
    await store.load();
    expect(() => {
      (store.get().categories[0]!.models[0] as { name: string }).name = 'x';
    }).toThrow(TypeError);
  });

  it('refuses a file that is not valid JSON or not a catalog', async () => {
    fs.writeFileSync(file, '{"version": 1, "categ');
    await expect(new CatalogStore({ file }).load()).rejects.toThrow(/not valid JSON/);
    fs.writeFileSync(file, JSON.stringify({ version: 1, date: '', categories: [{ id: 'a', name: 'A', models: [entry('m.gguf')] }] }));
    await expect(new CatalogStore({ file, schema: llmCatalogFileSchema }).load()).rejects.toThrow(CatalogFileError);
  });
});

describe('the catalog date (minuteStamp)', () => {
  it('formats Rome wall-clock time as YYYY-MM-DD HH:MM', () => {
    expect(minuteStamp(new Date('2026-01-05T23:59:00Z'))).toBe('2026-01-06 00:59');
  });
});

describe('seedCatalogs', () => {
  it('copies the shipped catalogs that are missing and never overwrites a user copy', async () => {
    const shipped = path.join(dir, 'shipped');
    const target = path.join(dir, 'studio', 'catalogs');
    fs.mkdirSync(shipped);
    for (const name of ['models.json', 'loras.json', 'llm_models.json']) fs.writeFileSync(path.join(shipped, name), `{"from":"${name}"}`);
    fs.mkdirSync(target, { recursive: true });
    fs.writeFileSync(path.join(target, 'loras.json'), '{"user":true}');

    expect((await seedCatalogs(shipped, target)).sort()).toEqual(['llm_models.json', 'models.json']);
    expect(fs.readFileSync(path.join(target, 'models.json'), 'utf8')).toBe('{"from":"models.json"}');
    expect(fs.readFileSync(path.join(target, 'loras.json'), 'utf8')).toBe('{"user":true}');
    expect(await seedCatalogs(shipped, target)).toEqual([]);
  });
});

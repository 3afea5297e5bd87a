/**
 * One catalog JSON file on disk. Reads are served from memory; every write goes through a
 * promise chain so two updates never interleave (a read-modify-write that overlapped another
 * would silently drop entries), and lands with temp file + fsync + rename so a crash or a
 * concurrent reader never sees half a file.
 *
 * The file is read on first use, not when Studio starts: validating a catalog builds its schema
 * and runs it over every entry (~10 ms of a ~150 ms start, profiled for #29), and most starts
 * answer requests that never look at a catalog before they look at the UI.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { deepFreeze } from '../config.js';
import { minuteStamp } from '../time.js';
import { fsyncDir } from '../fs-durable.js';
import {
  CATALOG_FILE_NAMES,
  LIVE_ENTRY_FIELDS,
  catalogEntries,
  catalogFileSchema,
  type CatalogCategory,
  type CatalogEntry,
  type CatalogFile,
} from '../contracts/catalog.contract.js';

export interface CatalogStoreOptions {
  /** Absolute path of the catalog JSON file. */
  file: string;
  /** Validation schema; `llmCatalogFileSchema` for `llm_models.json`. */
  schema?: typeof catalogFileSchema;
  /** Clock for the `date` field (tests). */
  now?: () => Date;
  /** Told once when the read on first use fails (the store then reports not loaded until `load()`). */
  onFirstReadError?: (err: CatalogFileError) => void;
}

/** A catalog file that is missing, unreadable or does not match the schema. */
export class CatalogFileError extends Error {}

/** Serialized, atomic access to one catalog file. */
export class CatalogStore {
  readonly file: string;
  private readonly schema: typeof catalogFileSchema;
  private readonly now: () => Date;
  private readonly onFirstReadError: (err: CatalogFileError) => void;
  private current: CatalogFile | null = null;
  /** Whether the file was read (or tried) since the store was made: the first use reads it. */
  private tried = false;
  /** Tail of the write queue; every load/update chains onto it. */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(options: CatalogStoreOptions) {
    this.file = options.file;
    this.schema = options.schema ?? catalogFileSchema;
    this.now = options.now ?? (() => new Date());
    this.onFirstReadError = options.onFirstReadError ?? (() => {});
  }

  /** Read and validate the file (again), replacing the in-memory copy. */
  load(): Promise<CatalogFile> {
    this.tried = true;
    return this.enqueue(async () => {
      this.current = await this.readFromDisk();
      return this.current;
    });
  }

  /**
   * The catalog in memory (deep-frozen: copy before changing), read from the file on first use.
   * Throws when the file could not be read, until a `load()` or `update()` succeeds.
   */
  get(): CatalogFile {
    if (!this.isLoaded()) throw new CatalogFileError(`catalog ${path.basename(this.file)} is not loaded`);
    return this.current!;
  }

  /** Whether the catalog is in memory: read on first use, by `load()` or by an `update()`. */
  isLoaded(): boolean {
    if (!this.current && !this.tried) this.readOnFirstUse();
    return this.current !== null;
  }

  /** The entry stored under `file`, with its category, or null. */
  findEntry(file: string): { entry: CatalogEntry; category: CatalogCategory } | null {
    return catalogEntries(this.get()).find((hit) => hit.entry.file === file) ?? null;
  }

  /**
   * Apply `mutator` to a private copy of the catalog and write the result. Updates run one at a
   * time in call order. When the set of files changed (entries added or removed) and the mutator
   * did not set `version` itself, `version` goes up by one and `date` becomes now. A mutator that
   * throws, or a result that fails validation, leaves memory and disk untouched.
   */
  update<T>(mutator: (draft: CatalogFile) => T | Promise<T>): Promise<T> {
    return this.enqueue(async () => {
      const base = this.current ?? (await this.readFromDisk());
      const draft = structuredClone(base) as CatalogFile;
      const result = await mutator(draft);
      const next = this.checked(base, draft);
      await writeJsonAtomic(this.file, next);
      this.current = deepFreeze(next);
      return result;
    });
  }

  /**
   * Like `update`, over this catalog and `other` as one change (promote moves an entry between
   * them): both temp files are written and synced before either is renamed, this one's rename
   * first. A crash between the two renames leaves the entry in both files, never in neither;
   * readers resolve that in favour of this one (see modelhub-map.ts). Callers always pass the
   * stores in the same order, or two concurrent calls could wait on each other.
   */
  updateTogether<T>(other: CatalogStore, mutator: (mine: CatalogFile, theirs: CatalogFile) => T | Promise<T>): Promise<T> {
    return this.enqueue(() =>
      other.enqueue(async () => {
        const baseMine = this.current ?? (await this.readFromDisk());
        const baseTheirs = other.current ?? (await other.readFromDisk());
        const mine = structuredClone(baseMine) as CatalogFile;
        const theirs = structuredClone(baseTheirs) as CatalogFile;
        const result = await mutator(mine, theirs);
        const nextMine = this.checked(baseMine, mine);
        const nextTheirs = other.checked(baseTheirs, theirs);
        const tmpMine = await writeJsonTemp(this.file, nextMine);
        let tmpTheirs: string;
        try {
          tmpTheirs = await writeJsonTemp(other.file, nextTheirs);
        } catch (err) {
          await fsp.rm(tmpMine, { force: true });
          throw err;
        }
        try {
          await fsp.rename(tmpMine, this.file);
        } catch (err) {
          await Promise.all([fsp.rm(tmpMine, { force: true }), fsp.rm(tmpTheirs, { force: true })]);
          throw err;
        }
        this.current = deepFreeze(nextMine);
        try {
          await fsp.rename(tmpTheirs, other.file);
        } catch (err) {
          await fsp.rm(tmpTheirs, { force: true });
          throw err;
        }
        other.current = deepFreeze(nextTheirs);
        await fsyncDir(path.dirname(this.file));
        if (path.dirname(other.file) !== path.dirname(this.file)) await fsyncDir(path.dirname(other.file));
        return result;
      }),
    );
  }

  /** `draft` validated, with `version`/`date` bumped when its set of files changed. */
  private checked(base: CatalogFile, draft: CatalogFile): CatalogFile {
    const parsed = this.schema.safeParse(stripLiveFields(draft));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.map(String).join('.') ?? '';
      throw new CatalogFileError(`invalid catalog update (${where}: ${issue?.message ?? 'invalid'})`);
    }
    const next = parsed.data;
    if (next.version === base.version && !sameFileSet(base, next)) {
      next.version = base.version + 1;
      // `2026-11-22 14:05` in Studio's time zone (the catalog `date` format).
      next.date = minuteStamp(this.now());
    }
    return next;
  }

  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.tail.then(task, task);
    // The chain must survive a failed task, or one bad update would wedge every later one.
    this.tail = run.catch(() => undefined);
    return run;
  }

  /**
   * The first read, synchronous: a small file, read once, by whoever needs the catalog first. An
   * update already in the queue does not conflict: it reads the file itself and replaces `current`
   * with what it wrote.
   */
  private readOnFirstUse(): void {
    this.tried = true;
    try {
      this.current = this.parse(fs.readFileSync(this.file, 'utf8'));
    } catch (err) {
      this.onFirstReadError(err instanceof CatalogFileError ? err : this.cannotRead(err));
    }
  }

  private async readFromDisk(): Promise<CatalogFile> {
    let text: string;
    try {
      text = await fsp.readFile(this.file, 'utf8');
    } catch (err) {
      throw this.cannotRead(err);
    }
    return this.parse(text);
  }

  private cannotRead(err: unknown): CatalogFileError {
    return new CatalogFileError(`cannot read catalog ${this.file}: ${(err as Error).message}`);
  }

  private parse(text: string): CatalogFile {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (err) {
      throw new CatalogFileError(`catalog ${this.file} is not valid JSON: ${(err as Error).message}`);
    }
    const parsed = this.schema.safeParse(stripLiveFields(raw));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new CatalogFileError(
        `catalog ${this.file} is invalid at ${issue?.path.map(String).join('.') ?? '?'}: ${issue?.message ?? ''}`,
      );
    }
    return deepFreeze(parsed.data);
  }
}

/** Write JSON next to `file`, fsync it, then rename over `file` (atomic on POSIX). */
async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  const tmp = await writeJsonTemp(file, value);
  try {
    await fsp.rename(tmp, file);
  } catch (err) {
    await fsp.rm(tmp, { force: true });
    throw err;
  }
  await fsyncDir(path.dirname(file));
}

/** Write JSON to a synced temp file beside `file` (not yet renamed); returns its path. */
async function writeJsonTemp(file: string, value: unknown): Promise<string> {
  const dir = path.dirname(file);
  await fsp.mkdir(dir, { recursive: true });
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`);
  const handle = await fsp.open(tmp, 'w', 0o644);
  try {
    await handle.writeFile(`${JSON.stringify(value, null, 2)}\n`, 'utf8');
    await handle.sync();
  } catch (err) {
    await handle.close();
    await fsp.rm(tmp, { force: true });
    throw err;
  }
  await handle.close();
  return tmp;
}

/**
 * Copy the shipped catalogs into `targetDir` on first boot: only files that are missing there,
 * so a user's edited catalogs are never overwritten. Returns the names copied.
 */
export async function seedCatalogs(shippedDir: string, targetDir: string): Promise<string[]> {
  await fsp.mkdir(targetDir, { recursive: true });
  const copied: string[] = [];
  for (const name of Object.values(CATALOG_FILE_NAMES)) {
    const source = path.join(shippedDir, name);
    const target = path.join(targetDir, name);
    if (!fs.existsSync(source) || fs.existsSync(target)) continue;
    const tmp = path.join(targetDir, `.${name}.${process.pid}.seed.tmp`);
    await fsp.copyFile(source, tmp);
    // A concurrent first boot may have won the race; its copy is as good as ours.
    if (fs.existsSync(target)) {
      await fsp.rm(tmp, { force: true });
      continue;
    }
    await fsp.rename(tmp, target);
    copied.push(name);
  }
  return copied;
}

function sameFileSet(a: CatalogFile, b: CatalogFile): boolean {
  const filesA = new Set(catalogEntries(a).map((hit) => hit.entry.file));
  const filesB = catalogEntries(b).map((hit) => hit.entry.file);
  return filesA.size === filesB.length && filesB.every((file) => filesA.has(file));
}

function stripLiveFields(raw: unknown): unknown {
  if (!raw || typeof raw !== 'object') return raw;
  const categories = (raw as { categories?: unknown }).categories;
  if (!Array.isArray(categories)) return raw;
  for (const category of categories) {
    const models = (category as { models?: unknown } | null)?.models;
    if (!Array.isArray(models)) continue;
    for (const entry of models) {
      if (entry && typeof entry === 'object') for (const field of LIVE_ENTRY_FIELDS) delete (entry as Record<string, unknown>)[field];
    }
  }
  return raw;
}

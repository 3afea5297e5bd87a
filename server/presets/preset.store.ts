/**
 * Presets on disk: one `<id>.json` per preset in `STUDIO_DIR/presets/`. The file name is the
 * preset's identity; every write goes to a temporary name and is renamed into place, so a crash
 * never leaves half a preset under a real name.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../fs-durable.js';
import { describeZodError } from '../http/errors.js';
import { completePreset, PRESET_ID, presetInputSchema, type Preset } from '../contracts/presets.contract.js';

/** A preset file that exists but cannot be used (bad JSON or shape). */
export class PresetFileError extends Error {
  constructor(
    readonly id: string,
    readonly reason: string,
  ) {
    super(`Preset file ${id}.json is invalid: ${reason}`);
  }
}

export class PresetStore {
  constructor(readonly dir: string) {}

  /** Absolute path of a preset's file (the id is already validated). */
  file(id: string): string {
    return path.join(this.dir, `${id}.json`);
  }

  /** Ids of every `<id>.json` with a valid id, sorted. */
  async ids(): Promise<string[]> {
    const names = await fsp.readdir(this.dir).catch(ifMissing<string[]>([]));
    return names
      .filter((n) => n.endsWith('.json'))
      .map((n) => n.slice(0, -'.json'.length))
      .filter((id) => PRESET_ID.test(id))
      .sort();
  }

  /** The preset, null when there is no file; PresetFileError when the file is unusable. */
  async get(id: string): Promise<Preset | null> {
    const text = await fsp.readFile(this.file(id), 'utf8').catch(ifMissing(null));
    return text === null ? null : parsePresetFile(id, text);
  }

  /** Every readable preset, plus the ids of files that could not be read. */
  async all(): Promise<{ presets: Preset[]; broken: PresetFileError[] }> {
    const presets: Preset[] = [];
    const broken: PresetFileError[] = [];
    for (const id of await this.ids()) {
      try {
        const preset = await this.get(id);
        if (preset) presets.push(preset);
      } catch (err) {
        if (err instanceof PresetFileError) broken.push(err);
        else throw err;
      }
    }
    return { presets, broken };
  }

  /** Write (create or replace) a preset's file atomically. */
  write(preset: Preset): Promise<void> {
    return writeFileAtomic(this.file(preset.id), `${JSON.stringify(preset, null, 2)}\n`);
  }

  /**
   * Whether `id` is taken by a file other than `exceptId`'s own (on a case-insensitive disk
   * `Foo.json` and `foo.json` are one file, so renaming Foo to foo is not a clash).
   */
  async taken(id: string, exceptId?: string): Promise<boolean> {
    const stat = await fsp.stat(this.file(id)).catch(() => null);
    if (!stat) return false;
    if (exceptId === undefined) return true;
    const own = await fsp.stat(this.file(exceptId)).catch(() => null);
    return !own || own.ino !== stat.ino || own.dev !== stat.dev;
  }

  /** Remove a preset's file; false when there was none. */
  remove(id: string): Promise<boolean> {
    return fsp.unlink(this.file(id)).then(() => true, ifMissing(false));
  }
}

/** A rejection handler: `value` for a file that is not there, any other error rethrown. */
function ifMissing<T>(value: T): (err: NodeJS.ErrnoException) => T {
  return (err) => {
    if (err.code === 'ENOENT') return value;
    throw err;
  };
}

/** Parse a preset document; the id is the file's, whatever the document says. */
function parsePresetFile(id: string, text: string): Preset {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new PresetFileError(id, `not valid JSON (${(err as Error).message})`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new PresetFileError(id, 'not a JSON object');
  const parsed = presetInputSchema.safeParse({ ...json, id });
  if (!parsed.success) throw new PresetFileError(id, describeZodError(parsed.error, 'preset'));
  return completePreset(parsed.data);
}

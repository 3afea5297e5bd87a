/**
 * `version.json` (spec Versioning 2): the app version, the runtime it needs, and one
 * `{version, date}` per component. The installed copy lives in `<appDir>/resources/`; the clone
 * in `.repo/` carries the remote one. Versions compare numerically, dotted strings part by part.
 */
import fs from 'node:fs/promises';
import { versionFileSchema, type VersionFile } from '../contracts/system.contract.js';

/** Read and validate a `version.json`; throws with the file name when it is missing or malformed. */
export async function readVersionFile(file: string): Promise<VersionFile> {
  const text = await fs.readFile(file, 'utf8');
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`${file} is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  const parsed = versionFileSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`${file} does not look like a version.json: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data;
}

/** The runtime version a file declares (`runtime_version`, else `components.runtime.version`). */
export function runtimeVersionOf(file: VersionFile): number {
  if (file.runtime_version !== undefined) return file.runtime_version;
  const raw = Number(file.components.runtime?.version ?? 0);
  return Number.isFinite(raw) ? raw : 0;
}


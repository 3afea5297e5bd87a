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

/** Negative, zero or positive as `a` is older than, equal to or newer than `b` (`1.10.0` > `1.9.3`). */
export function compareVersions(a: string | number | undefined, b: string | number | undefined): number {
  const parts = (v: string | number | undefined) => String(v ?? '0').split(/[.\-+]/).map((p) => Number.parseInt(p, 10) || 0);
  const pa = parts(a);
  const pb = parts(b);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const diff = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

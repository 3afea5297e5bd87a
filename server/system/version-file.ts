/**
 * `version.json` (spec Versioning 2): the app version, the runtime it needs, and one
 * `{version, date}` per component. The installed copy lives in `<appDir>/resources/`; the clone
 * in `.repo/` carries the remote one. Versions compare numerically, dotted strings part by part.
 */
import fs from 'node:fs/promises';
import { z } from 'zod';

export const COMPONENT_NAMES = ['runtime', 'backend', 'frontend', 'models', 'loras', 'llm_models', 'workflows'] as const;
export type ComponentName = (typeof COMPONENT_NAMES)[number];
/** Components an update may copy (spec Update rule 1: `runtime` is never updated). */
export const UPDATABLE_COMPONENTS = ['backend', 'frontend', 'models', 'loras', 'llm_models', 'workflows'] as const;
export type UpdatableComponent = (typeof UPDATABLE_COMPONENTS)[number];

const componentSchema = z.looseObject({ version: z.union([z.string(), z.number()]), date: z.string().default('') });
export type ComponentVersion = z.infer<typeof componentSchema>;

export const versionFileSchema = z.looseObject({
  app_version: z.string(),
  date: z.string().default(''),
  min_runtime: z.number().int().nonnegative().default(0),
  runtime_version: z.number().int().nonnegative().optional(),
  components: z.record(z.string(), componentSchema).default({}),
});
export type VersionFile = z.infer<typeof versionFileSchema>;

/** The versions as remote-version reports them (`{app_version, min_runtime, components}`). */
export interface VersionSummary {
  app_version: string;
  min_runtime: number;
  components: Partial<Record<ComponentName, ComponentVersion>>;
}

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

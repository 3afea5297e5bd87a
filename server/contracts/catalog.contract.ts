/**
 * Shapes of the catalog files (`models.json`, `loras.json`, `llm_models.json`) as stored on disk.
 * `status` and `on_disk_bytes` are never stored: they are computed live (see model-status.ts).
 * Objects are "loose" so fields another part of Studio adds later (trained words, metadata
 * timestamps) survive a read-modify-write by code that does not know them.
 */
import { z } from 'zod';

/** The live status of a catalog entry (spec "Catalog model status"; `incomplete`, beyond it: a file well short of the catalog's size). */
export type ModelStatus = 'present' | 'incomplete' | 'not_downloaded' | 'downloading' | 'queued' | 'error';

/** Which catalog file an entry belongs to. */
export type CatalogKind = 'models' | 'loras' | 'llm';

/** File names of the three catalogs, in `resources/catalogs/` and `STUDIO_DIR/catalogs/`. */
export const CATALOG_FILE_NAMES: Readonly<Record<CatalogKind, string>> = Object.freeze({
  models: 'models.json',
  loras: 'loras.json',
  llm: 'llm_models.json',
});

/** Fields computed per request that must never be written back into a catalog file. */
export const LIVE_ENTRY_FIELDS = ['status', 'on_disk_bytes'] as const;

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;
// Control characters and path separators: the file name is joined onto a directory.
// eslint-disable-next-line no-control-regex
const UNSAFE_NAME_CHARS = /[\u0000-\u001f/\\:*?"<>|]/;

/** A bare file name that is safe to join onto a directory (the key in URLs). */
export const safeFileNameSchema = z
  .string()
  .min(1)
  .max(255)
  .refine((name) => !UNSAFE_NAME_CHARS.test(name), 'file must be a bare file name (no path separators)')
  .refine((name) => name !== '.' && name !== '..' && !WINDOWS_RESERVED.test(name), 'file is not a usable name')
  .refine((name) => !/[. ]$/.test(name), 'file must not end with a dot or a space');

const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9_.+ -]*$/;

function isRelativeSubpath(value: string): boolean {
  if (value.startsWith('/') || value.includes('\\')) return false;
  return value.split('/').every((segment) => segment !== '..' && SEGMENT.test(segment));
}

/** Target subfolder under `STUDIO_DIR/models/` (`checkpoints`, `loras`, ...), or `.` for LLM models. */
const destSchema = z
  .string()
  .min(1)
  .refine((dest) => dest === '.' || isRelativeSubpath(dest), 'dest must be "." or a relative folder without ".."');

/** A model hub id: stored as a string, accepted as a number from imported files. */
const hubIdSchema = z.union([z.string().regex(/^\d+$/), z.number().int().nonnegative()]).transform(String);

/** Noise-level role of a LoRA inside its pair (`both` covers all noise levels). */
const pairRoleSchema = z.enum(['high', 'low', 'both']);
export type PairRole = z.infer<typeof pairRoleSchema>;

/** One downloadable file of a catalog. */
export const catalogEntrySchema = z
  .looseObject({
    name: z.string().min(1),
    file: safeFileNameSchema,
    dest: destSchema,
    size_gb: z.number().nonnegative(),
    base_model: z.string().optional(),
    tags: z.array(z.string()).default([]),
    source: z.enum(['modelhub', 'repohost']),
    /** Repository id on the repository host, `owner/name`. */
    hosted_repo: z
      .string()
      .regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, 'hosted_repo must look like owner/name')
      .optional(),
    /** Path of the file inside `hosted_repo` when it is not `file` at the repository root. */
    repo_path: z.string().refine(isRelativeSubpath, 'repo_path must be a relative path without ".."').optional(),
    modelhub_version_id: hubIdSchema.optional(),
    modelhub_model_id: hubIdSchema.optional(),
    /** The version file (`files[].id`) this entry is, when it is not the version's primary file. */
    modelhub_file_id: hubIdSchema.optional(),
    sha256: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, 'sha256 must be 64 hex characters')
      .optional(),
    pair_id: z.string().min(1).optional(),
    pair_role: pairRoleSchema.optional(),
  })
  .superRefine((entry, ctx) => {
    if (entry.source === 'modelhub' && entry.modelhub_version_id === undefined) {
      ctx.addIssue({ code: 'custom', path: ['modelhub_version_id'], message: 'a modelhub entry needs modelhub_version_id' });
    }
    if (entry.source === 'repohost' && entry.hosted_repo === undefined) {
      ctx.addIssue({ code: 'custom', path: ['hosted_repo'], message: 'a repohost entry needs hosted_repo' });
    }
  });
export type CatalogEntry = z.infer<typeof catalogEntrySchema>;

/** A named group of entries (`checkpoints`, `wan_loras`, ...). */
export const catalogCategorySchema = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  models: z.array(catalogEntrySchema),
});
export type CatalogCategory = z.infer<typeof catalogCategorySchema>;

const catalogFileBaseSchema = z.looseObject({
  version: z.number().int().nonnegative(),
  /** `YYYY-MM-DD HH:MM` of the last add/remove. */
  date: z.string(),
  categories: z.array(catalogCategorySchema),
});

function rejectDuplicates(catalog: z.infer<typeof catalogFileBaseSchema>, ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  catalog.categories.forEach((category, c) => {
    category.models.forEach((entry, m) => {
      if (seen.has(entry.file)) {
        ctx.addIssue({
          code: 'custom',
          path: ['categories', c, 'models', m, 'file'],
          message: `duplicate file "${entry.file}" (files are the catalog key)`,
        });
      }
      seen.add(entry.file);
    });
  });
}

/** `models.json` / `loras.json`: files unique across the whole catalog. */
export const catalogFileSchema = catalogFileBaseSchema.superRefine(rejectDuplicates);
export type CatalogFile = z.infer<typeof catalogFileSchema>;

/** `llm_models.json`: like the others, but every entry lands directly in `llm/models` (`dest: "."`). */
export const llmCatalogFileSchema = catalogFileBaseSchema.superRefine((catalog, ctx) => {
  rejectDuplicates(catalog, ctx);
  catalog.categories.forEach((category, c) => {
    category.models.forEach((entry, m) => {
      if (entry.dest !== '.') {
        ctx.addIssue({ code: 'custom', path: ['categories', c, 'models', m, 'dest'], message: 'LLM entries have dest "."' });
      }
    });
  });
});

/** The schema that validates a catalog file of the given kind. */
export function catalogSchemaFor(kind: CatalogKind): typeof catalogFileSchema {
  return kind === 'llm' ? llmCatalogFileSchema : catalogFileSchema;
}

/** Every entry of a catalog, in file order, with the category it sits in. */
export function catalogEntries(catalog: CatalogFile): Array<{ entry: CatalogEntry; category: CatalogCategory }> {
  const out: Array<{ entry: CatalogEntry; category: CatalogCategory }> = [];
  for (const category of catalog.categories) for (const entry of category.models) out.push({ entry, category });
  return out;
}

/** `stats` of the models and LoRA catalogs (`fetching_count` on models only). */
export interface CatalogStats {
  queued_count: number;
  downloading_count: number;
  fetching_count?: number;
  present_count: number;
  total_count: number;
  global_speed: number;
  models_bytes: number;
  free_bytes: number;
}

/** One compatible LoRA group as the API returns it. */
export interface LoraPair {
  pair_id: string;
  name: string;
  high: string | null;
  low: string | null;
  both: string | null;
}

export const catalogFilesBody = z.object({ filenames: z.array(z.string().min(1)).max(1000) });

/** A catalog entry with its live fields (`LIVE_ENTRY_FIELDS`). */
export type CatalogModel = CatalogEntry & { status: ModelStatus; on_disk_bytes: number };

/** `GET /api/models/catalog`, `GET /api/loras/catalog`: the catalog with live fields and counts. */
export interface CatalogResponse {
  version: number;
  date: string;
  stats: CatalogStats;
  categories: Array<{ id: string; name: string; models: CatalogModel[] }>;
}

/** One line of the download activity log (`GET /api/admin/activity-log`). */
export interface ActivityLine {
  /** `HH:MM:SS`, the box's local time (the spec's field). */
  time: string;
  /** The same instant as ISO 8601 with its offset (the spec's `time` has no date and no zone): what the page shows, in the browser's zone. */
  at: string;
  message: string;
  level: 'info' | 'ok' | 'error';
}

/** Installing a workflow's models: what was queued, what was already there. */
export interface InstallModelsResult {
  queued: string[];
  skipped: string[];
  message: string;
}

/** `POST` of a catalog file to merge: the entries added and skipped. */
export interface CatalogImportResult {
  added: string[];
  skipped: string[];
  total_added: number;
}

/**
 * The disk page (`GET /api/admin/disk`, duplicates, orphans): what Studio's data takes on which
 * volume, model files stored twice, and files nothing uses any more.
 */
import { z } from 'zod';

/** A volume holding some of Studio's data (`fs.statfs`). */
export interface DiskVolume {
  /** The first of Studio's folders found on it (a label; volumes are told apart by device id). */
  path: string;
  total_bytes: number;
  used_bytes: number;
  free_bytes: number;
  /** The kinds of data stored on it. */
  holds: DiskUsageKind[];
}

export type DiskUsageKind = 'models' | 'llm_models' | 'outputs' | 'inputs' | 'gallery' | 'partial_downloads' | 'engine' | 'caches' | 'logs' | 'database';

/** One row of "usage by kind"; `models` rows also come per folder (`dest`). */
export interface DiskUsageRow {
  kind: DiskUsageKind;
  /** The folder under `models/` for per-folder rows. */
  folder?: string;
  path: string;
  bytes: number;
  files: number;
}

export interface DiskReport {
  volumes: DiskVolume[];
  usage: DiskUsageRow[];
  models_by_folder: DiskUsageRow[];
  /** The warning threshold in force (`DISK_WARN_FREE_GB`). */
  warn_free_bytes: number;
  low_space: boolean;
}

/** One copy of a duplicated file. */
export interface DuplicateCopy {
  /** Relative to the data directory. */
  path: string;
  /** Copies sharing an inode are already one file on disk. */
  inode: number;
  device: number;
  mtime: string;
  /** Catalog entries naming this file (`kind/name`). */
  catalog: string[];
}

export interface DuplicateGroup {
  sha256: string;
  size_bytes: number;
  copies: DuplicateCopy[];
  /** Workflows whose `required_models` name the file. */
  workflows: string[];
  /** Bytes a hard-link of the copies on one volume would free. */
  reclaimable_bytes: number;
  /** False when the copies sit on different volumes (a hard link cannot join them). */
  linkable: boolean;
}

export interface DuplicatesReport {
  groups: DuplicateGroup[];
  reclaimable_bytes: number;
  files_scanned: number;
  /** Files whose SHA-256 was computed by this scan (the rest came from the stored hashes). */
  files_hashed: number;
}

export type OrphanKind = 'partial_download' | 'unused_model' | 'unused_input' | 'orphan_job_folder';

export interface Orphan {
  kind: OrphanKind;
  /** Relative to the data directory. */
  path: string;
  size_bytes: number;
  modified: string;
  age_days: number;
}

export interface OrphansReport {
  orphans: Orphan[];
  total_bytes: number;
  /** Inputs older than this and named by no job of that period count as unused. */
  input_days: number;
}

/** `POST /api/admin/disk/duplicates/link`: hard-link the copies of one content. */
export const linkDuplicatesBody = z.object({
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'sha256 must be 64 lowercase hex characters'),
  confirm: z.literal(true, { error: 'confirm must be true: the copies are replaced by links to one file' }),
});

export interface LinkResult {
  sha256: string;
  kept: string;
  linked: string[];
  /** Copies left alone, with why (another volume, changed since the scan). */
  skipped: Array<{ path: string; reason: string }>;
  freed_bytes: number;
}

/** `POST /api/admin/disk/orphans/delete`: delete listed orphans (each is checked again first). */
export const deleteOrphansBody = z.object({
  paths: z.array(z.string().min(1)).min(1).max(10_000),
  confirm: z.literal(true, { error: 'confirm must be true: deleted files cannot be brought back' }),
  input_days: z.number().int().min(1).max(3650).optional(),
});

export interface DeleteOrphansResult {
  deleted: string[];
  /** Paths that are not (or no longer) orphans, left alone. */
  refused: string[];
  freed_bytes: number;
}

/** `GET /api/admin/disk/orphans?input_days=N`. */
export const orphansQuery = z.object({ input_days: z.coerce.number().int().min(1).max(3650).optional() });

/** The retention rule for job outputs: keep the newest `days` days, or the newest `max_gb` GB (one of the two). */
export const retentionRule = z
  .object({
    days: z.number().int('days must be a whole number').min(1, 'days must be at least 1').max(36500).nullable().optional(),
    max_gb: z.number().positive('max_gb must be above 0').max(1e6).nullable().optional(),
  })
  .refine((r) => (r.days == null) !== (r.max_gb == null), { message: 'Give either days or max_gb (one rule at a time)' });

/** `PUT /api/admin/disk/retention`: the rule and whether it runs daily. */
export const retentionSettingsBody = z.object({ enabled: z.boolean({ message: 'enabled must be true or false' }), days: z.number().nullable().optional(), max_gb: z.number().nullable().optional() });

export interface RetentionRule {
  days: number | null;
  max_gb: number | null;
}

/** What a rule would remove now (or did remove). */
export interface RetentionPlan {
  rule: RetentionRule;
  jobs: number;
  bytes: number;
  /** The first few job ids (newest first), to show what goes. */
  sample: string[];
  /** Jobs past the rule kept anyway: used by a preset, or part of a retry chain. */
  kept: number;
}

export interface RetentionState {
  enabled: boolean;
  rule: RetentionRule | null;
  /** What the rule would remove now (null without a rule). */
  would_free: RetentionPlan | null;
  last_run: { at: string; jobs: number; bytes: number; errors: string[] } | null;
}

/**
 * Provenance (issue 46): a job's lock (what it ran on, recorded at submission), the differences
 * between a lock and this Studio with what can be done about each, Run again, and the output
 * metadata settings.
 */
import { z } from 'zod';

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);

/** What a job ran on. `lock.json` in its package; the job page shows it. */
export const jobLockSchema = z.object({
  lock_version: z.literal(1),
  prompt_id: z.string(),
  recorded_at: z.string(),
  studio: z.object({ version: z.string().nullable() }),
  engine: z.object({ kind: z.string(), version: z.string().nullable(), commit: z.string().nullable() }),
  node_packages: z.array(z.object({ name: z.string(), repo: z.string().nullable(), commit: z.string().nullable(), disabled: z.boolean() })),
  /** SHA-256 of the engine Python's `name==version` list, sorted (pip freeze); null with the reason when not read. */
  python: z.object({ packages_sha256: sha256.nullable(), packages: z.number().int().nullable(), skipped: z.string().optional() }),
  models: z.array(z.object({ folder: z.string(), file: z.string(), sha256: sha256.nullable(), size: z.number().nullable() })),
  workflow: z.object({ id: z.string().nullable(), name: z.string().nullable(), version: z.union([z.string(), z.number()]).nullable() }),
  params: z.record(z.string(), z.unknown()),
  seeds: z.record(z.string(), z.unknown()),
  /** SHA-256 of the graph as queued (its JSON). */
  graph_sha256: sha256,
});
export type JobLock = z.infer<typeof jobLockSchema>;

/** What Studio can do about a difference: a request the page may send, or run anyway. */
export interface DifferenceFix {
  action: 'download_model' | 'install_node' | 'update_node' | 'run_anyway';
  label: string;
  request?: { method: 'POST'; path: string; body?: Record<string, unknown> };
}

export interface LockDifference {
  kind: 'engine' | 'node_package' | 'node_package_missing' | 'python' | 'model_missing' | 'model_hash' | 'workflow';
  what: string;
  /** This Studio's value (null: it has none). */
  here: string | null;
  /** The lock's value: where the job ran. */
  there: string | null;
  fix: DifferenceFix[];
}

/** `GET /api/admin/history/{id}/lock`, and the answer to an imported package or image. */
export interface LockReport {
  lock: JobLock;
  differences: LockDifference[];
}

/** `POST /api/admin/history/{id}/run-again` and `POST /api/admin/provenance/run`. */
export type RunAgainResult = { status: 'queued'; prompt_id: string; differences: LockDifference[] } | { status: 'differences'; differences: LockDifference[] };

export const runAgainBody = z.object({ run_anyway: z.boolean().optional() }).strict();
export const runLockBody = z.object({ lock: jobLockSchema, run_anyway: z.boolean().optional() });

/** Output metadata: on or off, and the workflows whose prompts stay out of what outputs carry. */
const provenanceSettingsSchema = z.object({
  metadata: z.boolean(),
  private_prompt_workflows: z.array(z.string().min(1).max(200)).max(1000),
});
export type ProvenanceSettings = z.infer<typeof provenanceSettingsSchema>;
export const provenanceSettingsBody = provenanceSettingsSchema.partial().strict();

/**
 * The job record of the spec (wire names), its progress object, and the run routes' answers.
 */
import { z } from 'zod';
import { jsonObjectText } from './fields.js';

export type JobStatus = 'queued' | 'running' | 'completed' | 'error' | 'stalled' | 'cancelled';

export interface OutputRef {
  filename: string;
  subfolder: string;
  type: string;
}

export interface JobRecord {
  prompt_id: string;
  workflow_id: string | null;
  workflow_name: string | null;
  output_dir: string | null;
  status: JobStatus;
  queued_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  duration: number | null;
  input_image: string | null;
  params: Record<string, unknown>;
  seeds: Record<string, number>;
  output: OutputRef | null;
  error: string | null;
  retry_of?: string;
  /** Present on jobs started by a preset run: the preset's id at that time. */
  preset_id?: string;
  /** Present (true) on a job the user starred; output retention keeps it. */
  starred?: true;
  /** Only in the queue listing. */
  progress?: ProgressObject;
  /**
   * The engine of the pool the job was handed to (`"local"`, a GPU or remote engine's id): on every
   * record once it reached an engine, finished ones included; in the queue listing always present
   * (null while it waits in Studio's queue).
   */
  engine_id?: string | null;
  /** The person the job belongs to; absent for the owner of Studio (so a Studio nobody was added to answers as before). */
  owner_id?: string;
  /** Only in the queue listing: place among the jobs waiting in Studio (0 = next), null once handed to an engine. */
  position?: number | null;
}

export const ACTIVE_STATUSES: readonly JobStatus[] = ['queued', 'running'];
export const FINISHED_STATUSES: readonly JobStatus[] = ['completed', 'error', 'stalled', 'cancelled'];

export type ProgressStatus = 'pending' | 'running' | 'completed' | 'error' | 'interrupted';

/** The spec's progress object. */
export interface ProgressObject {
  status: ProgressStatus;
  node_title: string | null;
  node_type: string | null;
  step: number;
  total_steps: number;
  /** Graph nodes that ran to the end (instant ones included, cached ones not). */
  nodes_done: number;
  total_nodes: number;
  effective_total: number;
  cached_count: number;
  percent: number;
  eta_seconds: number | null;
  step_rate: number | null;
  node_outputs: Readonly<Record<string, unknown>>;
}

export interface ExecuteResult {
  prompt_id: string;
  client_id: string;
  seeds: Record<string, number>;
}

export const runResultQuery = z.object({ output_type: z.enum(['video', 'image']).default('video') });

export const historyQuery = z.object({
  limit: z.coerce.number().int().min(1).max(10_000).optional(),
  offset: z.coerce.number().int().min(0).optional(),
  status: z.enum(['completed', 'error', 'stalled', 'cancelled']).optional(),
  workflow_id: z.string().min(1).optional(),
  /** Words of the prompt (any text parameter) or the workflow name, case-insensitive. */
  q: z.string().trim().max(500).optional(),
  /** Submitted at or after / before this instant: ISO 8601 with its zone (`Z` or an offset), or epoch ms. */
  from: wireInstant('from').optional(),
  to: wireInstant('to').optional(),
  /** `true`: only starred jobs; `false`: only the others. */
  starred: z.enum(['true', 'false']).transform((v) => v === 'true').optional(),
  /** Owner and admins: `mine`, `everyone` (the default) or a person's id. Others always see only their own. */
  owner: z.string().trim().min(1).max(100).optional(),
});

/** `POST /api/admin/history/{prompt_id}/star`. */
export const starBody = z.object({ starred: z.boolean({ error: 'starred must be true or false' }) });

/** A query instant as epoch ms: digits are epoch ms; text must name its zone, since the server's is not the browser's. */
function wireInstant(name: string) {
  return z.string().transform((text, ctx) => {
    const ms = /^\d{1,15}$/.test(text) ? Number(text) : /(Z|[+-]\d{2}:?\d{2})$/i.test(text) ? Date.parse(text) : Number.NaN;
    if (Number.isNaN(ms)) {
      ctx.addIssue({ code: 'custom', message: `${name} must be an ISO 8601 time with its zone (…Z or +01:00) or epoch milliseconds` });
      return z.NEVER;
    }
    return ms;
  });
}

export const deleteJobsBody = z.object({ prompt_ids: z.array(z.string().min(1)) });

/** `POST /api/admin/history/retry`; any failure is answered "Missing prompt_id". */
export const retryBody = z.object({ prompt_id: z.string().min(1) });

/** `POST /api/run/{id}/execute`: JSON or multipart, `params` a JSON object or its text. */
export const executeFields = z.object({ params: jsonObjectText('params') });

/** `GET /api/run/status/{id}` in its shapes. */
export type RunStatus =
  | ({ prompt_id: string } & ProgressObject)
  | { status: 'completed'; outputs: Record<string, { filename: string; subfolder: string; type: string }> }
  | { status: 'pending'; prompt_id: string; queue_position: number | null }
  | { status: 'error'; prompt_id: string; error: string | null }
  | { status: 'running'; prompt_id: string };

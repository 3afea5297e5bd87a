/**
 * How a job record is laid out in the `jobs` table: the columns and the mapping both ways. Shared
 * by the read side (`job.store.ts`) and the one writer (`job-record.writer.ts`).
 */
import type { JobRecord } from '../contracts/jobs.contract.js';
import { OWNER_ID } from '../contracts/users.contract.js';

/** The record's plain columns as they are; the JSON ones as text, the optional ones as NULL. */
export interface JobRow extends Omit<JobRecord, 'params' | 'seeds' | 'output' | 'retry_of' | 'preset_id' | 'starred' | 'progress' | 'engine_id' | 'owner_id' | 'position'> {
  params: string;
  seeds: string;
  output: string | null;
  retry_of: string | null;
  preset_id: string | null;
  created_ms: number;
  /** 1 when starred. */
  starred: number;
  /** The engine of the pool the job was last handed to (null: it never left Studio's queue). */
  engine_id: string | null;
  /** The person the job belongs to (`owner`: the holder of API_KEY). */
  owner_id: string;
}

export const JOB_COLUMNS =
  'prompt_id, workflow_id, workflow_name, output_dir, status, queued_at, started_at, finished_at, duration, input_image, params, seeds, output, error, retry_of, preset_id, created_ms, starred, engine_id, owner_id';

/** A record as a row (without `created_ms`, which only an insert sets). */
export function toRow(job: JobRecord): Omit<JobRow, 'created_ms'> {
  return {
    prompt_id: job.prompt_id,
    workflow_id: job.workflow_id ?? null,
    workflow_name: job.workflow_name ?? null,
    output_dir: job.output_dir ?? null,
    status: job.status,
    queued_at: job.queued_at ?? null,
    started_at: job.started_at ?? null,
    finished_at: job.finished_at ?? null,
    duration: job.duration ?? null,
    input_image: job.input_image ?? null,
    params: JSON.stringify(job.params ?? {}),
    seeds: JSON.stringify(job.seeds ?? {}),
    output: job.output ? JSON.stringify(job.output) : null,
    error: job.error ?? null,
    retry_of: job.retry_of ?? null,
    preset_id: job.preset_id ?? null,
    starred: job.starred ? 1 : 0,
    engine_id: job.engine_id ?? null,
    owner_id: job.owner_id ?? OWNER_ID,
  };
}

/** A row as the spec's record. */
export function fromRow(row: JobRow): JobRecord {
  const { params, seeds, output, error, retry_of, preset_id, starred, engine_id, owner_id, created_ms: _created, ...plain } = row;
  return {
    ...plain,
    params: JSON.parse(params) as Record<string, unknown>,
    seeds: JSON.parse(seeds) as Record<string, number>,
    output: output ? (JSON.parse(output) as JobRecord['output']) : null,
    error,
    ...(retry_of ? { retry_of } : {}),
    ...(preset_id ? { preset_id } : {}),
    ...(starred ? { starred: true } : {}),
    ...(engine_id ? { engine_id } : {}),
    // The owner's records read exactly as before people existed.
    ...(owner_id !== OWNER_ID ? { owner_id } : {}),
  };
}

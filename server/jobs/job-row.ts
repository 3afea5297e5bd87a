/**
 * How a job record is laid out in the `jobs` table: the columns and the mapping both ways. Shared
 * by the read side (`job.store.ts`) and the one writer (`job-record.writer.ts`).
 */
import type { JobRecord, JobStatus } from '../contracts/jobs.contract.js';

export interface JobRow {
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
  params: string;
  seeds: string;
  output: string | null;
  error: string | null;
  retry_of: string | null;
  preset_id: string | null;
  created_ms: number;
  /** 1 when starred. */
  starred: number;
  /** The engine of the pool the job was last handed to (null: it never left Studio's queue). */
  engine_id: string | null;
}

export const JOB_COLUMNS =
  'prompt_id, workflow_id, workflow_name, output_dir, status, queued_at, started_at, finished_at, duration, input_image, params, seeds, output, error, retry_of, preset_id, created_ms, starred, engine_id';

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
  };
}

/** A row as the spec's record. */
export function fromRow(row: JobRow): JobRecord {
  const job: JobRecord = {
    prompt_id: row.prompt_id,
    workflow_id: row.workflow_id,
    workflow_name: row.workflow_name,
    output_dir: row.output_dir,
    status: row.status,
    queued_at: row.queued_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
    duration: row.duration,
    input_image: row.input_image,
    params: JSON.parse(row.params) as Record<string, unknown>,
    seeds: JSON.parse(row.seeds) as Record<string, number>,
    output: row.output ? (JSON.parse(row.output) as JobRecord['output']) : null,
    error: row.error,
  };
  if (row.retry_of) job.retry_of = row.retry_of;
  if (row.preset_id) job.preset_id = row.preset_id;
  if (row.starred) job.starred = true;
  if (row.engine_id) job.engine_id = row.engine_id;
  return job;
}

/** A text column as JSON, quoted by SQLite (escapes as `JSON.stringify` does; NULL is `null`). */
const quoted = (column: string) => `json_quote(${column})`;
/** A field that `fromRow` sets only when the column is set (non-empty). */
const optional = (key: string, column: string) => `CASE WHEN ${column} IS NOT NULL AND ${column} <> '' THEN ',"${key}":' || ${quoted(column)} ELSE '' END`;

/** A record's JSON text up to its duration's value, and from there on (`fromRow`'s keys and order). */
const HEAD =
  `'{"prompt_id":' || ${quoted('prompt_id')} || ',"workflow_id":' || ${quoted('workflow_id')} || ',"workflow_name":' || ${quoted('workflow_name')}` +
  ` || ',"output_dir":' || ${quoted('output_dir')} || ',"status":' || ${quoted('status')} || ',"queued_at":' || ${quoted('queued_at')}` +
  ` || ',"started_at":' || ${quoted('started_at')} || ',"finished_at":' || ${quoted('finished_at')} || ',"duration":'`;
const TAIL =
  `',"input_image":' || ${quoted('input_image')} || ',"params":' || coalesce(params, 'null') || ',"seeds":' || coalesce(seeds, 'null')` +
  ` || ',"output":' || coalesce(nullif(output, ''), 'null') || ',"error":' || ${quoted('error')}` +
  ` || ${optional('retry_of', 'retry_of')} || ${optional('preset_id', 'preset_id')}` +
  ` || CASE WHEN starred THEN ',"starred":true' ELSE '' END || ${optional('engine_id', 'engine_id')} || '}'`;
/**
 * SQLite's text of the duration where it is JavaScript's too: null, or an integer a JS number holds
 * exactly. NULL otherwise: SQLite prints a real as `1.0e+21` where JavaScript prints `1e+21`.
 */
const DURATION = "CASE WHEN duration IS NULL THEN 'null' WHEN typeof(duration) = 'integer' AND duration BETWEEN -9007199254740991 AND 9007199254740991 THEN CAST(duration AS TEXT) END";

/*
 * SQLite writes the records' JSON: what `JSON.stringify(fromRow(row))` gives, without a JS value
 * per column or a parse and stringify of the JSON columns, which are spliced in as stored (the one
 * writer stores them with `JSON.stringify`, `toRow`, which parsing and stringifying again would
 * give back unchanged).
 */

/** A record's whole JSON text, NULL when SQLite cannot write its duration (`DURATION`). */
export const RECORD_JSON = `${HEAD} || ${DURATION} || ${TAIL}`;

/**
 * Around a query selecting `RECORD_JSON AS j` in order: one row of the JSON array of its records
 * (one string made by SQLite instead of one per record, joined and flattened by JavaScript) and
 * whether every record had its text (1), or some must be written by `recordsJson` (0).
 * An aggregate over a subquery with ORDER BY reads its rows in that order (SQLite does not
 * flatten it); the history-json tests hold this to `history()`'s order.
 */
export function recordsArraySql(inner: string): string {
  return `SELECT '[' || coalesce(group_concat(j, ','), '') || ']', count(*) = count(j) FROM (${inner})`;
}

/** The select list for `recordsJson`: [text before the duration, duration, text after it]. */
export const RECORD_JSON_COLUMNS = `${HEAD}, duration, ${TAIL}`;

/** The JSON array of the records of `rows`, selected raw with `RECORD_JSON_COLUMNS`. */
export function recordsJson(rows: readonly unknown[][]): string {
  let text = '[';
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    const duration = r[1];
    text += `${i ? ',' : ''}${r[0] as string}${duration === null ? 'null' : JSON.stringify(duration)}${r[2] as string}`;
  }
  return `${text}]`;
}

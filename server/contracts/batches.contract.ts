/**
 * Batches (issue 45): many jobs from one form. A grid (up to three axes over the form's inputs), a
 * list of rows, or a CSV whose columns are mapped to inputs; every cell one job on Studio's queue,
 * in the batch lane (after every waiting interactive job, inside the batch's time window).
 */
import { z } from 'zod';
import { MAX_AXES } from './batch-limits.js';


const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;

/** A range of numbers: `from`, `from + step`, … up to and including `to` when it falls on a step. */
const rangeSchema = z.object({ from: z.number(), to: z.number(), step: z.number().positive('must be more than 0') });
/** Prompt search-and-replace: each value is the base prompt with `replace` swapped for one of `with`. */
const replaceSchema = z.object({ replace: z.string().min(1, 'must not be empty'), with: z.array(z.string()).min(1, 'needs at least one value') });

const axisSchema = z.object({
  /** An input id of the form, or `<loras input>[<n>].strength` (the n-th LoRA's weight). */
  input: z.string().min(1, 'must not be empty'),
  values: z.union([z.array(z.unknown()).min(1, 'needs at least one value'), rangeSchema, replaceSchema]),
  /** What the grid calls the axis (default: the input's label). */
  label: z.string().optional(),
});
export type BatchAxisInput = z.infer<typeof axisSchema>;

const windowSchema = z.object({
  from: z.string().regex(HHMM, 'must be HH:MM'),
  to: z.string().regex(HHMM, 'must be HH:MM'),
});
export type BatchWindow = z.infer<typeof windowSchema>;

const batchKinds = ['grid', 'list', 'csv'] as const;
export type BatchKind = (typeof batchKinds)[number];

/** `POST /api/admin/batches`. */
export const batchCreateBody = z
  .object({
    workflow_id: z.string().min(1).optional(),
    preset_id: z.string().min(1).optional(),
    /** The base values, as execute takes them (`_existing_input_image` included). */
    params: z.record(z.string(), z.unknown()).default({}),
    kind: z.enum(batchKinds),
    axes: z.array(axisSchema).max(MAX_AXES, `at most ${MAX_AXES} axes`).optional(),
    rows: z.array(z.record(z.string(), z.unknown())).optional(),
    csv: z.string().optional(),
    mapping: z.record(z.string(), z.string()).optional(),
    window: windowSchema.optional(),
    name: z.string().max(200).optional(),
  })
  .refine((b) => (b.workflow_id === undefined) !== (b.preset_id === undefined), { message: 'send either workflow_id or preset_id', path: ['workflow_id'] })
  .refine((b) => b.kind !== 'grid' || (b.axes?.length ?? 0) > 0, { message: 'a grid needs at least one axis', path: ['axes'] })
  .refine((b) => b.kind !== 'list' || (b.rows?.length ?? 0) > 0, { message: 'a list needs at least one row', path: ['rows'] })
  .refine((b) => b.kind !== 'csv' || (b.csv !== undefined && b.mapping !== undefined), { message: 'a CSV batch needs csv and mapping', path: ['csv'] });
export type BatchCreateBody = z.infer<typeof batchCreateBody>;

/**
 * `running`: its jobs go when their turn comes; `waiting`: outside its window (nothing starts until
 * it opens); `paused` by a person; `completed` every cell finished (some may have failed);
 * `cancelled` its unfinished cells were cancelled.
 */
export type BatchStatus = 'running' | 'waiting' | 'paused' | 'completed' | 'cancelled';

/** An axis as resolved: its values in order, as the cells carry them. */
export interface BatchAxis {
  input: string;
  label: string;
  values: unknown[];
  /** What the grid writes for each value (a replaced prompt shows the word that went in). */
  labels: string[];
}

export interface BatchCell {
  index: number;
  /** The axis/row values of this cell (only what differs from the base params). */
  values: Record<string, unknown>;
  /** A grid cell's value index on each axis, in axis order. */
  coords: number[] | null;
  prompt_id: string;
  status: string;
  engine_id: string | null;
  /** Output files of a finished cell (`output_dir`-relative names, `final` first). */
  outputs: string[];
  output_dir: string | null;
}

export interface BatchSummary {
  id: string;
  name: string;
  kind: BatchKind;
  status: BatchStatus;
  workflow_id: string;
  preset_id: string | null;
  owner_id: string;
  created_at: string;
  window: BatchWindow | null;
  total: number;
  done: number;
  failed: number;
  running: number;
}

export interface BatchDetail extends BatchSummary {
  axes: BatchAxis[];
  cells: BatchCell[];
  /** Engines working on its cells now. */
  engines: string[];
  /** Seconds until every cell is done at the engines' recent rate (null: no rate yet). */
  eta_s: number | null;
}

/** `POST /api/admin/batches` answer. */
export interface BatchCreated {
  id: string;
  status: BatchStatus;
  job_ids: string[];
  cells: Array<{ values: Record<string, unknown>; prompt_id: string }>;
}

/** WebSocket `batch.cell`: one cell's job changed. */
export interface BatchCellMessage {
  batch_id: string;
  index: number;
  prompt_id: string;
  status: string;
}

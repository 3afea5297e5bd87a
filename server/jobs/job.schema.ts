/**
 * The job record of the spec (wire names), shared with the renderer as types.
 */
import type { ProgressObject } from './progress-tracker.js';

export type JobStatus = 'queued' | 'running' | 'completed' | 'error' | 'stalled';

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
  /** Only in the queue listing. */
  progress?: ProgressObject;
}

export const ACTIVE_STATUSES: readonly JobStatus[] = ['queued', 'running'];
export const FINISHED_STATUSES: readonly JobStatus[] = ['completed', 'error', 'stalled'];

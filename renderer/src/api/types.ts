/**
 * Shapes the renderer reads from the server. Where the server has a type, it is imported
 * type-only (CONVENTIONS 8); the rest mirror the spec's wire names.
 */
import type { StudioEvent, Severity } from '../../../server/events/event.schema.js';
import type { EngineStateMessage, WsEventMap, PreviewMeta } from '../../../server/http/ws-events.js';
import type { JobRecord, JobStatus } from '../../../server/jobs/job.schema.js';
import type { ProgressObject } from '../../../server/jobs/progress-tracker.js';
import type { ManifestInput, WorkflowManifest } from '../../../server/workflows/manifest.schema.js';
import type { CatalogEntry, ModelStatus } from '../../../server/catalog/catalog.schema.js';

export type { StudioEvent, Severity, EngineStateMessage, WsEventMap, PreviewMeta, JobRecord, JobStatus, ProgressObject, ManifestInput, ModelStatus };

import type { ModelsStatus, NodesStatus } from '../../../server/workflows/readiness.js';

export type { ModelsStatus, NodesStatus };

/** A workflow list entry: the manifest plus readiness (a broken one carries `error`). */
export type WorkflowEntry = WorkflowManifest & {
  models_status: ModelsStatus;
  nodes_status: NodesStatus;
  ready: boolean;
  error?: string;
};

export interface WorkflowList {
  version: number;
  date: string;
  workflows: WorkflowEntry[];
}

export interface ExecuteResult {
  prompt_id: string;
  client_id: string;
  seeds: Record<string, number>;
}

/** `GET /api/run/status/{id}` in its shapes. */
export type RunStatus =
  | ({ prompt_id: string } & ProgressObject)
  | { status: 'completed'; outputs: Record<string, { filename: string; subfolder: string; type: string }> }
  | { status: 'pending'; prompt_id: string; queue_position: number | null }
  | { status: 'error'; prompt_id: string; error: string | null }
  | { status: 'running'; prompt_id: string };

/** A catalog entry with its live fields. */
export type CatalogModel = CatalogEntry & { status: ModelStatus; on_disk_bytes: number };

import type { CatalogStats } from '../../../server/catalog/catalog-query.service.js';

export type { CatalogStats };

import type { LoraPair } from '../../../server/catalog/lora-pairs.js';

/** `GET /api/admin/loras/compatible/{base_model}`: LoRAs grouped by pair. */
export type { LoraPair };

export interface CatalogResponse {
  version: number;
  date: string;
  stats: CatalogStats;
  categories: Array<{ id: string; name: string; models: CatalogModel[] }>;
}

export type DownloadState = 'queued' | 'downloading' | 'done' | 'error';

/** One entry of the download status stream. */
export interface DownloadStatus {
  status: DownloadState;
  bytes_downloaded: number;
  bytes_total: number;
  speed: number;
  percent: number;
  error?: string;
  /** While the server retries a failed attempt (sent by servers that report it). */
  retry?: { attempt: number; of: number };
}

export interface DownloadStream {
  downloads: Record<string, DownloadStatus>;
  timestamp: number;
}

export interface ActivityLine {
  time: string;
  message: string;
  level: 'info' | 'ok' | 'error';
}

export interface InstallModelsResult {
  queued: string[];
  skipped: string[];
  message: string;
}

export interface ImportResult {
  added: string[];
  skipped: string[];
  total_added: number;
}

export interface AssetFile {
  filename: string;
  path: string;
  subfolder: string;
  size: number;
  modified: number;
  type: string;
}

export interface AssetRef {
  filename: string;
  subfolder: string;
}

import type { JobGroup } from '../../../server/assets/asset-listing.js';

/** A job output folder (`studio_jobs[]`), as the server lists it. */
export type StudioJobGroup = JobGroup;

export interface AssetListing {
  files: AssetFile[];
  studio_jobs: StudioJobGroup[];
  total_size: number;
}

export interface AssetsChange {
  deleted?: string[];
  uploaded?: string[];
  errors: string[];
}

export type AssetType = 'inputs' | 'outputs';

export interface HistoryQuery {
  limit: number;
  offset: number;
  status?: 'completed' | 'error' | 'stalled';
  workflow_id?: string;
}

export interface EventQuery {
  limit?: number;
  types?: string[];
  severity?: Severity[];
}

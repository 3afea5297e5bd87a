/**
 * Shapes the renderer reads from the server. Wire types come from the server's contracts folder
 * (`server/contracts/`, imported type-only: the only server code the renderer may import); the
 * few the server has no type for mirror the spec's wire names.
 */
import type { AssetListing, JobGroup } from '../../../server/contracts/assets.contract.js';
import type { CatalogEntry, CatalogStats, LoraPair, ModelStatus } from '../../../server/contracts/catalog.contract.js';
import type { DownloadStatusEntry } from '../../../server/contracts/downloads.contract.js';
import type { Severity, StudioEvent } from '../../../server/contracts/events.contract.js';
import type { ExecuteResult, JobRecord, ProgressObject } from '../../../server/contracts/jobs.contract.js';
import type { PreviewMeta } from '../../../server/contracts/preview-frame.js';
import type { QueueState, RetryStalledResult } from '../../../server/contracts/queue.contract.js';
import type { FormNodeInfo, ManifestInput, ModelsStatus, NodeSourceCheck, NodesStatus, ReimportAnswer, WorkflowFormAnswer, WorkflowImportAnswer, WorkflowManifest } from '../../../server/contracts/workflows.contract.js';
import type { EngineStateMessage, WsEventMap } from '../../../server/contracts/ws.contract.js';

export type { StudioEvent, Severity, EngineStateMessage, WsEventMap, PreviewMeta, JobRecord, ProgressObject, ManifestInput };
export type { QueueState, RetryStalledResult };
export type { FormNodeInfo, NodeSourceCheck, ReimportAnswer, WorkflowFormAnswer, WorkflowManifest };
export type { WorkflowImportAnswer, ExecuteResult, LoraPair, AssetListing };

/** A workflow list entry: the manifest plus readiness (a broken one carries `error`). */
export type WorkflowEntry = WorkflowManifest & {
  models_status: ModelsStatus;
  nodes_status: NodesStatus;
  ready: boolean;
  error?: string;
  /** With an engine pool: on how many engines it can run. */
  engines_ready?: { ready: number; total: number };
  /** Imported workflows: where each package of `node_sources` would be installed from. */
  node_source_checks?: Record<string, NodeSourceCheck>;
};

export interface WorkflowList {
  version: number;
  date: string;
  workflows: WorkflowEntry[];
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

export interface CatalogResponse {
  version: number;
  date: string;
  stats: CatalogStats;
  categories: Array<{ id: string; name: string; models: CatalogModel[] }>;
}

/** One entry of the download status stream. */
export type DownloadStatus = DownloadStatusEntry;

export interface DownloadStream {
  downloads: Record<string, DownloadStatus>;
  timestamp: number;
}

export interface ActivityLine {
  /** `HH:MM:SS` in the server's zone (the spec's field). */
  time: string;
  /** ISO 8601 with its offset (servers before it: absent). */
  at?: string;
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

export interface AssetRef {
  filename: string;
  subfolder: string;
}

/** A job output folder (`studio_jobs[]`), as the server lists it. */
export type StudioJobGroup = JobGroup;

export interface AssetsChange {
  deleted?: string[];
  uploaded?: string[];
  errors: string[];
}

export type AssetType = 'inputs' | 'outputs';

export interface HistoryQuery {
  limit: number;
  offset: number;
  status?: 'completed' | 'error' | 'stalled' | 'cancelled';
  workflow_id?: string;
  /** Words of the prompt (or the workflow name). */
  q?: string;
  /** Submitted at or after / before (ISO with its zone). */
  from?: string;
  to?: string;
  starred?: boolean;
}

export interface EventQuery {
  limit?: number;
  types?: string[];
  severity?: Severity[];
}

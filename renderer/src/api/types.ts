/**
 * Shapes the renderer reads from the server. Wire types come from the server's contracts folder
 * (`server/contracts/`, imported type-only: the only server code the renderer may import); only
 * the query shapes the renderer itself builds (history and event filters) are its own.
 */
import type { AssetListing, AssetRef, AssetsChange, AssetType, JobGroup } from '../../../server/contracts/assets.contract.js';
import type { ActivityLine, CatalogImportResult, CatalogModel, CatalogResponse, InstallModelsResult, LoraPair } from '../../../server/contracts/catalog.contract.js';
import type { DownloadStatusEntry, DownloadStream } from '../../../server/contracts/downloads.contract.js';
import type { Severity, StudioEvent } from '../../../server/contracts/events.contract.js';
import type { ExecuteResult, JobRecord, ProgressObject, RunStatus } from '../../../server/contracts/jobs.contract.js';
import type { PreviewMeta } from '../../../server/contracts/preview-frame.js';
import type { QueueState, RetryStalledResult } from '../../../server/contracts/queue.contract.js';
import type { FormNodeInfo, ManifestInput, NodeSourceCheck, ReimportAnswer, WorkflowEntry, WorkflowFormAnswer, WorkflowImportAnswer, WorkflowList, WorkflowManifest } from '../../../server/contracts/workflows.contract.js';
import type { EngineStateMessage, WsEventMap } from '../../../server/contracts/ws.contract.js';

export type { StudioEvent, Severity, EngineStateMessage, WsEventMap, PreviewMeta, JobRecord, ProgressObject, ManifestInput };
export type { QueueState, RetryStalledResult };
export type { FormNodeInfo, NodeSourceCheck, ReimportAnswer, WorkflowFormAnswer, WorkflowManifest };
export type { WorkflowImportAnswer, ExecuteResult, LoraPair, AssetListing };
export type { WorkflowEntry, WorkflowList, RunStatus, CatalogModel, CatalogResponse, DownloadStream, ActivityLine, InstallModelsResult, AssetRef, AssetsChange, AssetType };
export type { CatalogImportResult as ImportResult, DownloadStatusEntry as DownloadStatus, JobGroup as StudioJobGroup };

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
  /** Owner and admins: `mine`, `everyone` (the server's default) or a person's id. */
  owner?: string;
}

export interface EventQuery {
  limit?: number;
  types?: string[];
  severity?: Severity[];
  /** One person's events (`data.user_id`); owners and admins only. */
  user?: string;
}

/**
 * Every Studio endpoint the renderer uses, in one place: stores call these
 * methods, never `fetch`, and media URLs come from here too.
 */
import { openEventStream } from './event-stream.js';
import { Http } from './http.js';
import type {
  ActivityLine,
  WorkflowImportAnswer,
  WorkflowFormAnswer,
  ReimportAnswer,
  ManifestInput,
  AssetListing,
  AssetsChange,
  AssetType,
  CatalogResponse,
  DownloadStream,
  EventQuery,
  ExecuteResult,
  HistoryQuery,
  ImportResult,
  InstallModelsResult,
  JobRecord,
  LoraPair,
  QueueState,
  RetryStalledResult,
  RunStatus,
  StudioEvent,
  WorkflowEntry,
  WorkflowList,
} from './types.js';

export type CatalogKind = 'models' | 'loras';

export interface MediaRef {
  filename: string;
  subfolder?: string;
  type?: 'input' | 'output' | 'temp' | string;
}

export class StudioApi {
  constructor(readonly http: Http = new Http()) {}

  // Workflows and runs
  listWorkflows(): Promise<WorkflowList> {
    return this.http.get('/api/admin/workflows');
  }
  workflow(id: string): Promise<WorkflowEntry> {
    return this.http.get(`/api/run/${encodeURIComponent(id)}`);
  }
  installModels(id: string): Promise<InstallModelsResult> {
    return this.http.post(`/api/admin/workflows/${encodeURIComponent(id)}/install-models`);
  }
  importWorkflow(file: File, fields: { name?: string; id?: string; category?: string }): Promise<WorkflowImportAnswer> {
    const form = new FormData();
    form.append('file', file, file.name);
    for (const [key, value] of Object.entries(fields)) if (value) form.append(key, value);
    return this.http.postForm('/api/admin/workflows/import', form);
  }
  /** The form editor: the stored form and every node's fields. */
  workflowForm(id: string): Promise<WorkflowFormAnswer> {
    return this.http.get(`/api/admin/workflows/${encodeURIComponent(id)}/form`);
  }
  saveWorkflowForm(id: string, inputs: ManifestInput[]): Promise<WorkflowImportAnswer> {
    return this.http.put(`/api/admin/workflows/${encodeURIComponent(id)}/form`, { inputs });
  }
  /** A changed version of an imported workflow: a preview of what changes, or (apply) written. */
  reimportWorkflow(id: string, file: File, apply: boolean): Promise<ReimportAnswer> {
    const form = new FormData();
    form.append('file', file, file.name);
    form.append('apply', String(apply));
    return this.http.postForm(`/api/admin/workflows/${encodeURIComponent(id)}/reimport`, form);
  }
  /** Where the browser downloads a workflow folder as a ZIP. */
  workflowExportUrl(id: string): string {
    return `/api/admin/workflows/${encodeURIComponent(id)}/export`;
  }
  uploadImage(file: Blob, name: string): Promise<{ filename: string }> {
    const form = new FormData();
    form.append('file', file, name);
    return this.http.postForm('/api/run/upload-image', form);
  }
  execute(id: string, params: Record<string, unknown>, image?: File): Promise<ExecuteResult> {
    const form = new FormData();
    form.append('params', JSON.stringify(params));
    if (image) form.append('input_image', image, image.name);
    return this.http.postForm(`/api/run/${encodeURIComponent(id)}/execute`, form);
  }
  runStatus(promptId: string): Promise<RunStatus> {
    return this.http.get(`/api/run/status/${encodeURIComponent(promptId)}`);
  }
  resultUrl(promptId: string, outputType: 'video' | 'image'): string {
    return this.http.url(`/api/run/result/${encodeURIComponent(promptId)}`, { output_type: outputType });
  }
  viewUrl(ref: MediaRef): string {
    return this.http.url('/api/engine/view', { filename: ref.filename, subfolder: ref.subfolder ?? '', type: ref.type ?? 'input' });
  }

  // Jobs
  queue(): Promise<JobRecord[]> {
    return this.http.get('/api/admin/queue');
  }
  history(query: HistoryQuery): Promise<JobRecord[]> {
    return this.http.get('/api/admin/history', { ...query });
  }
  deleteJobs(promptIds: string[]): Promise<{ deleted: string[]; errors: string[] }> {
    return this.http.post('/api/admin/history/delete', { prompt_ids: promptIds });
  }
  job(promptId: string): Promise<JobRecord> {
    return this.http.get(`/api/admin/history/${encodeURIComponent(promptId)}`);
  }
  starJob(promptId: string, starred: boolean): Promise<JobRecord> {
    return this.http.post(`/api/admin/history/${encodeURIComponent(promptId)}/star`, { starred });
  }
  retryJob(promptId: string): Promise<{ prompt_id: string; retry_of: string }> {
    return this.http.post('/api/admin/history/retry', { prompt_id: promptId });
  }
  queueState(): Promise<QueueState> {
    return this.http.get('/api/admin/queue/state');
  }
  cancelJob(promptId: string): Promise<JobRecord> {
    return this.http.post('/api/admin/queue/cancel', { prompt_id: promptId });
  }
  clearQueue(): Promise<{ cancelled: number }> {
    return this.http.post('/api/admin/queue/clear', {});
  }
  moveJob(promptId: string, position: number): Promise<QueueState> {
    return this.http.post('/api/admin/queue/move', { prompt_id: promptId, position });
  }
  pauseQueue(paused: boolean): Promise<QueueState> {
    return this.http.post(paused ? '/api/admin/queue/pause' : '/api/admin/queue/resume', {});
  }
  retryStalled(): Promise<RetryStalledResult> {
    return this.http.post('/api/admin/history/retry-stalled', {});
  }
  jobPackageUrl(promptId: string): string {
    return this.http.url(`/api/admin/history/${encodeURIComponent(promptId)}/package`);
  }

  // Events
  events(query: EventQuery = {}): Promise<StudioEvent[]> {
    return this.http.get('/api/admin/events', {
      limit: query.limit,
      types: query.types?.join(','),
      severity: query.severity?.join(','),
      user: query.user,
    });
  }

  // Catalogs and downloads
  catalog(kind: CatalogKind): Promise<CatalogResponse> {
    return this.http.get(`/api/admin/${kind}`);
  }
  download(file: string): Promise<unknown> {
    return this.http.post(`/api/admin/models/download/${encodeURIComponent(file)}`);
  }
  downloadBatch(files: string[]): Promise<{ queued: string[]; skipped: string[] }> {
    return this.http.post('/api/admin/models/download-batch', { filenames: files });
  }
  deleteModel(file: string): Promise<unknown> {
    return this.http.delete(`/api/admin/models/${encodeURIComponent(file)}`);
  }
  removeFromCatalog(file: string): Promise<unknown> {
    return this.http.delete(`/api/admin/models/${encodeURIComponent(file)}/catalog`);
  }
  importCatalog(file: File): Promise<ImportResult> {
    const form = new FormData();
    form.append('file', file, file.name);
    return this.http.postForm('/api/admin/models/import', form);
  }
  activityLog(): Promise<ActivityLine[]> {
    return this.http.get('/api/admin/activity-log');
  }
  clearActivityLog(): Promise<unknown> {
    return this.http.post('/api/admin/activity-log/clear');
  }
  /** The once-a-second download status stream; returns its closer. */
  downloadStream(onData: (data: DownloadStream) => void, onState?: (connected: boolean) => void): () => void {
    return openEventStream<DownloadStream>({ url: this.http.url('/api/admin/models/status'), onData, onState });
  }

  settings(): Promise<{ max_concurrent: number }> {
    return this.http.get('/api/admin/settings');
  }
  saveSettings(patch: { max_concurrent?: number }): Promise<unknown> {
    return this.http.put('/api/admin/settings', patch);
  }
  /** LoRAs whose base model matches (`GET /api/admin/loras/compatible/{base_model}`). */
  compatibleLoras(baseModel: string): Promise<LoraPair[]> {
    return this.http.get(`/api/admin/loras/compatible/${encodeURIComponent(baseModel)}`);
  }

  // Assets
  assets(type: AssetType): Promise<AssetListing> {
    return this.http.get(`/api/admin/assets/${type}`);
  }
  uploadInputs(files: File[]): Promise<AssetsChange> {
    const form = new FormData();
    for (const file of files) form.append('files', file, file.name);
    return this.http.postForm('/api/admin/assets/upload-inputs', form);
  }
  deleteAssets(type: AssetType, files: string[]): Promise<AssetsChange> {
    return this.http.post('/api/admin/assets/delete', { type, files });
  }
  outputsZipUrl(): string {
    return this.http.url('/api/admin/assets/download');
  }
  /** A cached JPEG thumbnail of an asset (a video's first frame); `path` is relative to its area. */
  thumbnailUrl(type: AssetType, path: string): string {
    return this.http.url('/api/admin/assets/thumbnail', { type, path });
  }
  /** Ask for a thumbnail only to learn why it fails (the `<img>` cannot read the answer's detail). */
  async thumbnailCheck(type: AssetType, path: string): Promise<void> {
    await this.http.get<unknown>('/api/admin/assets/thumbnail', { type, path });
  }
  /** An asset file itself (Range-capable, so videos seek). */
  assetFileUrl(type: AssetType, path: string): string {
    return this.http.url('/api/admin/assets/file', { type, path });
  }

  // Session
  async logout(): Promise<void> {
    // The answer is a redirect to /login; following it is the browser's job.
    await fetch(this.http.url('/api/auth/logout'), { method: 'POST', credentials: 'same-origin', redirect: 'manual' }).catch(() => undefined);
  }
}

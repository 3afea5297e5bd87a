/**
 * Background metadata fetch (spec: `POST /api/admin/models/fetch-metadata`): every entry of the
 * models and LoRA catalogs with a `modelhub_version_id` or a `hosted_repo` is looked up and its
 * names, tags, base model, trained words and timestamps updated through the catalog store (so
 * writes stay serialized and atomic). One batch at a time; a few lookups in parallel.
 */
import type { EventBus } from '../events/event-bus.js';
import type { Logger } from '../logging.js';
import type { ModelhubClient, ModelhubModel } from '../modelhub-client/modelhub.client.js';
import type { RepohostClient } from '../repohost/repohost.client.js';
import { romeIso } from '../time.js';
import type { CatalogSet } from './catalog-set.js';
import { catalogEntries, type CatalogEntry } from '../contracts/catalog.contract.js';
import { modelhubPatch, repohostPatch, type EntryPatch } from './metadata-patch.js';

/** Metadata-fetch statuses (spec "Catalog model status"). */
export type MetadataStatus = 'queued_metadata' | 'fetching_metadata' | 'done' | 'error';

/** One entry of `GET /api/admin/models/metadata-status`. */
export interface MetadataState {
  status: MetadataStatus;
  error?: string;
}

type MetadataKind = 'models' | 'loras';

export interface MetadataServiceOptions {
  catalogs: CatalogSet;
  modelhub: ModelhubClient;
  repohost: RepohostClient;
  events: Pick<EventBus, 'emit'>;
  logger: Logger;
}

/** Lookups in flight at once (the hubs rate limit bursts). */
const LOOKUPS_AT_ONCE = 2;

interface Job {
  kind: MetadataKind;
  file: string;
}

/** Runs metadata batches and remembers each file's last state. */
export class MetadataService {
  private readonly states = new Map<string, MetadataState & { kind: MetadataKind }>();
  private batch: Promise<void> | null = null;
  private controller = new AbortController();

  constructor(private readonly opts: MetadataServiceOptions) {}

  /** Start a batch in the background; when one is running, nothing new starts. */
  fetchAll(): { status: 'started' | 'already_running'; total: number } {
    if (this.batch) return { status: 'already_running', total: this.fetchingCount() };
    const jobs = this.collectJobs();
    for (const job of jobs) this.states.set(job.file, { kind: job.kind, status: 'queued_metadata' });
    this.batch = this.run(jobs)
      .catch((err: unknown) => this.opts.logger.error('metadata batch failed', err))
      .finally(() => {
        this.batch = null;
      });
    return { status: 'started', total: jobs.length };
  }

  /** filename → `{status, error?}` for every file of the current or last batch. */
  statusMap(): Record<string, MetadataState> {
    return Object.fromEntries([...this.states].map(([file, { kind: _kind, ...state }]) => [file, state]));
  }

  /** Entries (of `kind`, or all) waiting for or in a lookup (the catalog stats' `fetching_count`). */
  fetchingCount(kind?: MetadataKind): number {
    return [...this.states.values()].filter((s) => (kind === undefined || s.kind === kind) && (s.status === 'queued_metadata' || s.status === 'fetching_metadata')).length;
  }

  /** Abort lookups in flight and wait for the batch to wind down. */
  async stop(): Promise<void> {
    this.controller.abort();
    await this.batch;
    this.controller = new AbortController();
  }

  private collectJobs(): Job[] {
    const jobs: Job[] = [];
    for (const kind of ['models', 'loras'] as const) {
      const store = this.opts.catalogs[kind];
      if (!store.isLoaded()) continue;
      for (const { entry } of catalogEntries(store.get())) {
        if (entry.modelhub_version_id !== undefined || entry.hosted_repo !== undefined) jobs.push({ kind, file: entry.file });
      }
    }
    return jobs;
  }

  private async run(jobs: Job[]): Promise<void> {
    const queue = [...jobs];
    let fetched = 0;
    let failed = 0;
    const signal = this.controller.signal;
    const worker = async () => {
      for (let job = queue.shift(); job && !signal.aborted; job = queue.shift()) {
        if (await this.fetchOne(job, signal)) fetched += 1;
        else failed += 1;
      }
    };
    await Promise.all(Array.from({ length: LOOKUPS_AT_ONCE }, worker));
    if (signal.aborted) return;
    const total = jobs.length;
    this.opts.events.emit(
      'model.metadata.batch.completed',
      failed === 0 ? 'success' : 'warning',
      failed === 0 ? `Metadata fetched for ${fetched} catalog entries` : `Metadata fetched for ${fetched} of ${total} catalog entries; ${failed} failed`,
      { total, fetched, failed },
    );
  }

  /** Look one entry up and write the result; true on success. */
  private async fetchOne(job: Job, signal: AbortSignal): Promise<boolean> {
    const store = this.opts.catalogs[job.kind];
    const entry = store.isLoaded() ? store.findEntry(job.file)?.entry : undefined;
    if (!entry) {
      this.states.delete(job.file);
      return true;
    }
    this.states.set(job.file, { kind: job.kind, status: 'fetching_metadata' });
    try {
      const patch = await this.lookup(entry, signal);
      await store.update((draft) => {
        for (const category of draft.categories) {
          const target = category.models.find((model) => model.file === job.file);
          if (target) Object.assign(target, patch);
        }
      });
      this.states.set(job.file, { kind: job.kind, status: 'done' });
      this.opts.events.emit('model.metadata.fetched', 'success', `Metadata fetched for ${job.file}`, { filename: job.file, catalog: job.kind });
      return true;
    } catch (err) {
      const message = (err as Error)?.message ?? String(err);
      if (signal.aborted) {
        this.states.set(job.file, { kind: job.kind, status: 'error', error: 'Studio stopped before the lookup finished' });
        return false;
      }
      this.states.set(job.file, { kind: job.kind, status: 'error', error: message });
      this.opts.events.emit('model.metadata.failed', 'error', `Metadata fetch failed for ${job.file}: ${message}`, {
        filename: job.file,
        catalog: job.kind,
        error: message,
      });
      return false;
    }
  }

  /** The patch from the entry's own source (the other one when it only has that id). */
  private async lookup(entry: CatalogEntry, signal: AbortSignal): Promise<EntryPatch> {
    const fetchedAt = romeIso();
    const useHub = entry.modelhub_version_id !== undefined && (entry.source === 'modelhub' || entry.hosted_repo === undefined);
    if (useHub) {
      const version = await this.opts.modelhub.getModelVersion(entry.modelhub_version_id!, signal);
      let model: ModelhubModel | null = null;
      const modelId = version.modelId ?? entry.modelhub_model_id;
      if (modelId !== undefined) {
        // Tags live on the model record; without them the rest is still worth saving.
        model = await this.opts.modelhub.getModel(modelId, signal).catch(() => null);
      }
      return modelhubPatch(entry, version, model, fetchedAt);
    }
    const repo = await this.opts.repohost.getModelInfo(entry.hosted_repo!, signal);
    return repohostPatch(entry, repo, fetchedAt);
  }
}

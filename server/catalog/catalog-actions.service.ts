/**
 * Write side of the catalogs: queue downloads, delete files, remove and import entries, and
 * install a workflow's models. Deleting always cancels a running download of the same file
 * first, so a download can never re-create a file the user just deleted.
 */
import fsp from 'node:fs/promises';
import { partFileFor, type Downloads } from '../downloads/index.js';
import type { EventBus } from '../events/event-bus.js';
import { ensureFreeSpace } from '../free-space.js';
import { DomainError } from '../domain-error.js';
import { loadWorkflow } from '../workflows/workflow.store.js';
import type { ActivityLog } from './activity-log.js';
import { downloadJobOf } from './catalog-downloads.js';
import { catalogUnreadable, findEntry, lookupEntry, MODEL_KINDS, reloadFailed, type CatalogHit, type CatalogSet } from './catalog-set.js';
import type { DiskUsage } from './disk-usage.js';
import { importEntries } from './catalog-import.js';
import { diskPresence, entryFilePath, type ModelDirs } from './model-status.js';
import type { CatalogImportResult } from '../contracts/catalog.contract.js';

/** Answer of the single-file download endpoints. */
export interface DownloadAnswer {
  status: 'queued' | 'downloading' | 'present';
  file: string;
}

export interface CatalogActionDeps {
  catalogs: CatalogSet;
  dirs: ModelDirs;
  downloads: Downloads;
  events: Pick<EventBus, 'emit'>;
  activity: ActivityLog;
  disk: DiskUsage;
  /** `STUDIO_DIR/workflows`, for install-models. */
  workflowsDir: string;
  /** Runs before an LLM model file is deleted (the LLM service stops a server that uses it). */
  beforeLlmDelete?: (file: string) => Promise<void>;
}

export class CatalogActions {
  constructor(private readonly deps: CatalogActionDeps) {}

  /** Queue a model or LoRA file (`POST /api/admin/models/download/{filename}`). */
  async download(filename: string): Promise<DownloadAnswer> {
    const hit = await lookupEntry(this.deps.catalogs, filename, MODEL_KINDS);
    if (!hit) throw new DomainError('not_found', `Not in the models or LoRA catalog: ${filename}`);
    return this.queue(hit);
  }

  /** Queue an LLM model file (`POST /api/admin/llm/models/download/{filename}`). */
  async downloadLlm(filename: string): Promise<DownloadAnswer> {
    const hit = await lookupEntry(this.deps.catalogs, filename, ['llm']);
    if (!hit) throw new DomainError('not_found', `Not in the LLM catalog: ${filename}`);
    return this.queue(hit);
  }

  /** Queue several files; skipped = not in a catalog, already on disk, or already queued/downloading. */
  async downloadBatch(filenames: readonly string[]): Promise<{ queued: string[]; skipped: string[] }> {
    const queued: string[] = [];
    const skipped: string[] = [];
    const unreadable = await reloadFailed(this.deps.catalogs, MODEL_KINDS);
    for (const filename of new Set(filenames)) {
      const hit = findEntry(this.deps.catalogs, filename, MODEL_KINDS);
      // "Skipped" would hide that the file may well be in the catalog that cannot be read.
      if (!hit && unreadable.length > 0) throw catalogUnreadable(unreadable);
      if (!hit || this.isPresent(hit)) {
        skipped.push(filename);
        continue;
      }
      (this.deps.downloads.enqueue(downloadJobOf(this.deps.dirs, hit.kind, hit.entry)).created ? queued : skipped).push(filename);
    }
    return { queued, skipped };
  }

  /** Delete a model or LoRA file (and its partial download); the catalog entry stays. */
  async deleteModel(filename: string): Promise<{ status: 'deleted'; file: string }> {
    const hit = await lookupEntry(this.deps.catalogs, filename, MODEL_KINDS);
    if (!hit) throw new DomainError('not_found', `Not in the models or LoRA catalog: ${filename}`);
    await this.deleteFiles(hit, 'model.deleted');
    return { status: 'deleted', file: filename };
  }

  /** Delete an LLM model file (`DELETE /api/admin/llm/models/{filename}`). */
  async deleteLlm(filename: string): Promise<{ status: 'deleted'; file: string }> {
    const hit = await lookupEntry(this.deps.catalogs, filename, ['llm']);
    if (!hit) throw new DomainError('not_found', `Not in the LLM catalog: ${filename}`);
    await this.deps.beforeLlmDelete?.(filename);
    await this.deleteFiles(hit, 'llm.model.deleted', { allowNothing: true });
    return { status: 'deleted', file: filename };
  }

  /** Remove an entry from its catalog; 409 while its file is on disk (spec "Catalog moves"). */
  async removeFromCatalog(filename: string): Promise<{ status: 'removed'; file: string; catalog: string; version: number }> {
    const hit = await lookupEntry(this.deps.catalogs, filename, MODEL_KINDS);
    if (!hit) throw new DomainError('not_found', `Not in the models or LoRA catalog: ${filename}`);
    if (diskPresence(this.deps.dirs).isOnDisk(hit.entry, hit.kind)) throw new DomainError('conflict', `${filename} is on disk: delete the file before removing it from the catalog`);
    await this.deps.downloads.cancel(filename);
    await this.deps.downloads.discardPart(entryFilePath(this.deps.dirs, hit.entry, hit.kind));
    const store = this.deps.catalogs[hit.kind];
    await store.update((draft) => {
      for (const category of draft.categories) category.models = category.models.filter((entry) => entry.file !== filename);
    });
    this.deps.activity.info(`Removed ${filename} from the ${hit.kind} catalog`);
    return { status: 'removed', file: filename, catalog: hit.kind, version: store.get().version };
  }

  /** Add the entries of an uploaded `models.json` to the models catalog (`POST /api/admin/models/import`). */
  async importCatalog(text: string): Promise<CatalogImportResult> {
    const result = await importEntries(this.deps.catalogs, text);
    if (result.added.length > 0) this.deps.activity.info(`Imported ${result.added.length} catalog entr${result.added.length === 1 ? 'y' : 'ies'}`);
    return { ...result, total_added: result.added.length };
  }

  /** Queue the missing `required_models` of a workflow that a catalog knows. */
  async installModels(workflowId: string): Promise<{ queued: string[]; skipped: string[]; message: string }> {
    const workflow = await loadWorkflow(this.deps.workflowsDir, workflowId);
    if (!workflow) throw new DomainError('not_found', `Workflow not found: ${workflowId}`);
    if (!workflow.manifest) throw new DomainError('broken', `Workflow ${workflowId} is broken: ${workflow.error ?? 'no manifest'}`);
    const queued: string[] = [];
    const skipped: string[] = [];
    for (const file of new Set(workflow.manifest.required_models)) {
      const hit = await lookupEntry(this.deps.catalogs, file, MODEL_KINDS);
      if (!hit) {
        skipped.push(file);
        continue;
      }
      if (this.isPresent(hit)) continue;
      this.deps.downloads.enqueue(downloadJobOf(this.deps.dirs, hit.kind, hit.entry));
      queued.push(file);
    }
    const parts = [queued.length > 0 ? `Queued ${queued.length} model(s) for download` : 'No models to download'];
    if (skipped.length > 0) parts.push(`${skipped.length} not in any catalog: ${skipped.join(', ')}`);
    return { queued, skipped, message: parts.join('; ') };
  }

  private async queue(hit: CatalogHit): Promise<DownloadAnswer> {
    if (this.isPresent(hit)) return { status: 'present', file: hit.entry.file };
    const job = downloadJobOf(this.deps.dirs, hit.kind, hit.entry);
    if (!this.deps.downloads.queueStates().has(job.file)) {
      // Refuse now, with the numbers, rather than fail half-way with a full disk.
      const partBytes = (await fsp.stat(partFileFor(job.finalFile)).catch(() => null))?.size ?? 0;
      await ensureFreeSpace(hit.kind === 'llm' ? this.deps.dirs.llmModels : this.deps.dirs.models, (job.estimatedBytes ?? 0) - partBytes, `downloading ${job.file}`);
    }
    const { created } = this.deps.downloads.enqueue(job);
    return { status: created ? 'queued' : 'downloading', file: hit.entry.file };
  }

  private isPresent(hit: CatalogHit): boolean {
    return diskPresence(this.deps.dirs).isPresent(hit.entry, hit.kind);
  }

  /**
   * Cancel the download, then remove the file and its partial download. 404 when there was
   * nothing at all (no file, no part, no queued or failed download), unless `allowNothing`.
   */
  private async deleteFiles(hit: CatalogHit, eventType: 'model.deleted' | 'llm.model.deleted', options: { allowNothing?: boolean } = {}): Promise<void> {
    const file = hit.entry.file;
    const hadRow = this.deps.downloads.statusEntries()[file] !== undefined;
    const cancelled = await this.deps.downloads.cancel(file);
    const finalFile = entryFilePath(this.deps.dirs, hit.entry, hit.kind);
    const bytes = await removeFile(finalFile);
    const partRemoved = await this.deps.downloads.discardPart(finalFile);
    this.deps.downloads.forget(file);
    if (bytes < 0 && !partRemoved && !cancelled && !hadRow) {
      if (options.allowNothing) return;
      throw new DomainError('not_found', `${file} is not on disk`);
    }
    this.deps.disk.invalidate();
    const what = bytes >= 0 ? 'Deleted' : cancelled ? 'Cancelled and removed the partial download of' : 'Removed the partial download of';
    this.deps.activity.info(`${what} ${file}`);
    this.deps.events.emit(eventType, 'info', `${what} ${file}`, {
      filename: file,
      catalog: hit.kind,
      bytes: Math.max(0, bytes),
      cancelled_download: cancelled,
    });
  }
}

/** Remove a file; its size before, or -1 when it did not exist. */
async function removeFile(file: string): Promise<number> {
  try {
    const stat = await fsp.stat(file);
    if (!stat.isFile()) return -1;
    await fsp.rm(file, { force: true });
    return stat.size;
  } catch {
    return -1;
  }
}

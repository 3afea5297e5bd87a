/**
 * Files nothing uses any more: partial downloads no queued download will resume, model files no
 * catalog lists and no workflow needs, inputs no job named in N days, and job folders whose job
 * record is gone. Listed with size and age; deleted only when asked with confirmation, each path
 * checked again against a fresh list first, and logged as an event. Nothing here runs by itself.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { DeleteOrphansResult, Orphan, OrphanKind, OrphansReport } from '../contracts/disk.contract.js';
import type { EventBus } from '../events/event-bus.js';
import { relativeToRoot, resolveInRoot, type DiskFolders } from './disk-folders.js';
import type { ModelUsage } from './duplicates.service.js';
import type { FileHashStore } from './file-hash.store.js';
import { walkFiles, type WalkedFile } from '../free-space.js';
import { finalFileOfPart, isPartialDownload } from './file-walk.js';
import type { JobRefsStore } from './job-refs.store.js';

const DAY_MS = 86_400_000;
/** A job folder younger than this may still be waiting for its record (created first). */
const JOB_FOLDER_GRACE_MS = 3_600_000;
const DEFAULT_INPUT_DAYS = 30;

export interface OrphansDeps {
  folders: DiskFolders;
  events: EventBus;
  hashes: FileHashStore;
  jobs: JobRefsStore;
  /** File names the download queue holds as queued or downloading. */
  queuedDownloads: () => Set<string>;
  usage: () => Promise<ModelUsage & { catalogNames: Set<string> }>;
  now?: () => number;
}

export class OrphansService {
  constructor(private readonly deps: OrphansDeps) {}

  /** `GET /api/admin/disk/orphans`. */
  async report(inputDays = DEFAULT_INPUT_DAYS): Promise<OrphansReport> {
    const orphans = await this.find(inputDays);
    return { orphans, total_bytes: orphans.reduce((sum, o) => sum + o.size_bytes, 0), input_days: inputDays };
  }

  /** `POST /api/admin/disk/orphans/delete`: delete the listed paths that are still orphans. */
  async delete(paths: readonly string[], inputDays = DEFAULT_INPUT_DAYS): Promise<DeleteOrphansResult> {
    const current = new Map((await this.find(inputDays)).map((orphan) => [orphan.path, orphan]));
    const result: DeleteOrphansResult = { deleted: [], refused: [], freed_bytes: 0 };
    for (const wanted of new Set(paths)) {
      const found = current.get(wanted);
      const full = resolveInRoot(this.deps.folders, wanted);
      if (!found || !full) {
        result.refused.push(wanted);
        continue;
      }
      await fsp.rm(full, { recursive: found.kind === 'orphan_job_folder', force: true });
      if (found.kind === 'partial_download') await fsp.rm(`${full}.meta.json`, { force: true });
      this.deps.hashes.forget(full);
      result.deleted.push(wanted);
      result.freed_bytes += found.size_bytes;
    }
    if (result.deleted.length > 0) {
      this.deps.events.emit('disk.orphans.deleted', 'info', `Deleted ${result.deleted.length} unused file${result.deleted.length === 1 ? '' : 's'} or folder${result.deleted.length === 1 ? '' : 's'}`, {
        deleted: result.deleted,
        freed_bytes: result.freed_bytes,
      });
    }
    return result;
  }

  private async find(inputDays: number): Promise<Orphan[]> {
    const now = this.deps.now?.() ?? Date.now();
    const f = this.deps.folders;
    const out: Orphan[] = [];
    const add = (kind: OrphanKind, file: { path: string; size: number; mtimeMs: number }) =>
      out.push({ kind, path: relativeToRoot(f, file.path), size_bytes: file.size, modified: new Date(file.mtimeMs).toISOString(), age_days: Math.floor((now - file.mtimeMs) / DAY_MS) });

    const modelFiles = [...(await walkFiles(f.models)), ...(await walkFiles(f.llmModels))];
    const queued = this.deps.queuedDownloads();
    const usage = await this.deps.usage();
    for (const file of modelFiles) {
      if (file.path.endsWith('.part.meta.json')) continue; // deleted with its part
      if (isPartialDownload(file.path)) {
        if (!queued.has(path.basename(finalFileOfPart(file.path)))) add('partial_download', file);
        continue;
      }
      if (path.basename(file.path).startsWith('.')) continue; // Studio's own markers
      const name = path.basename(file.path);
      if (!usage.catalogNames.has(name) && !usage.workflows.has(name)) add('unused_model', file);
    }

    const mentions = this.deps.jobs.inputMentionsSince(now - inputDays * DAY_MS).join('\n');
    for (const file of await walkFiles(f.inputs)) {
      if (now - file.mtimeMs < inputDays * DAY_MS) continue;
      if (!mentions.includes(path.basename(file.path))) add('unused_input', file);
    }

    const owned = this.deps.jobs.outputFolders();
    for (const entry of await fsp.readdir(f.outputs, { withFileTypes: true }).catch(() => [])) {
      if (!entry.isDirectory() || owned.has(entry.name)) continue;
      const full = path.join(f.outputs, entry.name);
      const files = await walkFiles(full);
      const stat = await fsp.stat(full);
      const mtimeMs = Math.max(stat.mtimeMs, ...files.map((file: WalkedFile) => file.mtimeMs));
      if (now - mtimeMs < JOB_FOLDER_GRACE_MS) continue;
      add('orphan_job_folder', { path: full, size: files.reduce((sum, file) => sum + file.size, 0), mtimeMs });
    }
    return out;
  }
}

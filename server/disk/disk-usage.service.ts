/**
 * The disk page's first half: the volumes holding Studio's data (total/used/free from
 * `fs.statfs`) and what each kind of data takes, models per folder. Walks every folder on each
 * call: the page asks on demand, and a stale number here would mislead a cleanup.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { DiskReport, DiskUsageKind, DiskUsageRow, DiskVolume } from '../contracts/disk.contract.js';
import { relativeToRoot, type DiskFolders } from './disk-folders.js';
import { isPartialDownload } from './file-walk.js';
import { distinctBytes, volumeSpace, walkFiles, type WalkedFile } from '../free-space.js';

/** Free bytes and size of the volume holding `dir` (null when it cannot be asked). */
async function volumeOf(dir: string): Promise<{ dev: number; total: number; free: number; used: number } | null> {
  const [space, stat] = await Promise.all([volumeSpace(dir), fsp.stat(dir).catch(() => null)]);
  return space && stat ? { dev: stat.dev, ...space } : null;
}

export class DiskUsageService {
  constructor(private readonly deps: { folders: DiskFolders; warnFreeBytes: number }) {}

  /** `GET /api/admin/disk`. */
  async report(): Promise<DiskReport> {
    const f = this.deps.folders;
    const [models, llm] = await Promise.all([walkFiles(f.models), walkFiles(f.llmModels)]);
    const usage: DiskUsageRow[] = [
      row('models', f.models, models.filter((file) => !isPartialDownload(file.path)), f),
      row('llm_models', f.llmModels, llm.filter((file) => !isPartialDownload(file.path)), f),
      row('partial_downloads', f.models, [...models, ...llm].filter((file) => isPartialDownload(file.path)), f),
      row('outputs', f.outputs, await walkFiles(f.outputs), f),
      row('inputs', f.inputs, await walkFiles(f.inputs), f),
      row('gallery', f.gallery, await walkFiles(f.gallery), f),
    ];
    for (const kind of ['engine', 'caches', 'logs', 'database'] as const) {
      for (const dir of f[kind]) usage.push(row(kind, dir, await walkOrFile(dir), f));
    }
    return {
      volumes: await this.volumes(usage),
      usage,
      models_by_folder: byFolder(f, models.filter((file) => !isPartialDownload(file.path))),
      warn_free_bytes: this.deps.warnFreeBytes,
      low_space: (await this.lowestFree()) < this.deps.warnFreeBytes,
    };
  }

  /** The least free space among the volumes holding the data directory's writable folders. */
  async lowestFree(): Promise<number> {
    const f = this.deps.folders;
    const volumes = await Promise.all([f.root, f.models, f.llmModels, f.outputs].map(volumeOf));
    const free = volumes.flatMap((v) => (v ? [v.free] : []));
    return free.length ? Math.min(...free) : Number.POSITIVE_INFINITY;
  }

  private async volumes(usage: DiskUsageRow[]): Promise<DiskVolume[]> {
    const byDev = new Map<number, DiskVolume>();
    for (const item of [{ kind: null, path: this.deps.folders.root }, ...usage.map((u) => ({ kind: u.kind, path: u.path }))]) {
      const full = path.resolve(this.deps.folders.root, item.path);
      const volume = await volumeOf(full);
      if (!volume) continue;
      let entry = byDev.get(volume.dev);
      if (!entry) {
        entry = { path: relativeToRoot(this.deps.folders, full) || '.', total_bytes: volume.total, used_bytes: volume.used, free_bytes: volume.free, holds: [] };
        byDev.set(volume.dev, entry);
      }
      if (item.kind && !entry.holds.includes(item.kind)) entry.holds.push(item.kind);
    }
    return [...byDev.values()];
  }
}

function row(kind: DiskUsageKind, dir: string, files: WalkedFile[], folders: DiskFolders): DiskUsageRow {
  return { kind, path: relativeToRoot(folders, dir), bytes: distinctBytes(files), files: files.length };
}

/** `models/<folder>/…` grouped by its first folder (files directly in `models/` are folder "."). */
function byFolder(folders: DiskFolders, files: WalkedFile[]): DiskUsageRow[] {
  const groups = new Map<string, WalkedFile[]>();
  for (const file of files) {
    const rel = path.relative(folders.models, file.path).split(path.sep);
    const folder = rel.length > 1 ? rel[0]! : '.';
    const list = groups.get(folder) ?? [];
    list.push(file);
    groups.set(folder, list);
  }
  return [...groups.entries()]
    .map(([folder, list]) => ({ ...row('models', path.join(folders.models, folder), list, folders), folder }))
    .sort((a, b) => b.bytes - a.bytes);
}

/** A folder's files, or a single file (the event log) as a one-entry list. */
async function walkOrFile(target: string): Promise<WalkedFile[]> {
  const stat = await fsp.lstat(target).catch(() => null);
  if (!stat) return [];
  if (stat.isFile()) return [{ path: target, size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino, dev: stat.dev, nlink: stat.nlink }];
  return stat.isDirectory() ? walkFiles(target) : [];
}

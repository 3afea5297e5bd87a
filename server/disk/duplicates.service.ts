/**
 * Model files stored twice: same size first (free: the walk has it), then SHA-256 (stored in
 * SQLite and reused while size and mtime hold), so only same-sized files are ever read. Copies
 * that already share an inode are one file and are not counted as waste. Replacing copies by
 * hard links happens only on request, only on one volume (a hard link cannot cross volumes, and
 * a symlink would break when the target moves), and only for copies whose hash still matches.
 */
import crypto from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { DuplicateCopy, DuplicateGroup, DuplicatesReport, LinkResult } from '../contracts/disk.contract.js';
import { DomainError, notFound } from '../domain-error.js';
import type { EventBus } from '../events/event-bus.js';
import { relativeToRoot, type DiskFolders } from './disk-folders.js';
import type { FileHashStore } from './file-hash.store.js';
import { walkFiles, type WalkedFile } from '../free-space.js';
import { isPartialDownload } from './file-walk.js';

/** Who uses a model file: catalog entries by path (relative to the data directory), workflows by file name. */
export interface ModelUsage {
  catalog: Map<string, string[]>;
  workflows: Map<string, string[]>;
}

export interface DuplicatesDeps {
  folders: DiskFolders;
  hashes: FileHashStore;
  events: EventBus;
  usage: () => Promise<ModelUsage>;
}

/** Files hashed at once (two keep one core's reads and the other's hashing busy). */
const HASHED_AT_ONCE = 2;

interface HashedGroup {
  sha256: string;
  size: number;
  files: WalkedFile[];
}

export class DuplicatesService {
  constructor(private readonly deps: DuplicatesDeps) {}

  /** `GET /api/admin/disk/duplicates`. */
  async report(): Promise<DuplicatesReport> {
    const { groups, scanned, hashed } = await this.scan();
    const usage = await this.deps.usage();
    const out = groups.map((group) => this.describe(group, usage)).sort((a, b) => b.reclaimable_bytes - a.reclaimable_bytes);
    return { groups: out, reclaimable_bytes: out.reduce((sum, g) => sum + g.reclaimable_bytes, 0), files_scanned: scanned, files_hashed: hashed };
  }

  /** `POST /api/admin/disk/duplicates/link`: replace the copies of `sha256` by hard links to one of them. */
  async link(sha256: string): Promise<LinkResult> {
    const { groups } = await this.scan();
    const group = groups.find((g) => g.sha256 === sha256);
    if (!group) throw notFound(`No duplicated model file has SHA-256 ${sha256} (scan again: the copies may have changed)`);
    // Keep the inode with the most links (already shared), then the oldest path name.
    const keeper = [...group.files].sort((a, b) => b.nlink - a.nlink || a.path.localeCompare(b.path))[0]!;
    const result: LinkResult = { sha256, kept: this.rel(keeper.path), linked: [], skipped: [], freed_bytes: 0 };
    for (const copy of group.files) {
      if (copy.path === keeper.path || (copy.ino === keeper.ino && copy.dev === keeper.dev)) continue;
      if (copy.dev !== keeper.dev) {
        result.skipped.push({ path: this.rel(copy.path), reason: 'on another volume: a hard link cannot join them' });
        continue;
      }
      const now = await fsp.lstat(copy.path).catch(() => null);
      const check = now ? await this.deps.hashes.hashOf({ path: copy.path, size: now.size, mtimeMs: now.mtimeMs }) : null;
      if (!now || !check || check.sha256 !== sha256) {
        result.skipped.push({ path: this.rel(copy.path), reason: 'changed since the scan' });
        continue;
      }
      await replaceByLink(keeper.path, copy.path);
      this.deps.hashes.remember({ path: copy.path, size: keeper.size, mtimeMs: keeper.mtimeMs }, sha256);
      result.linked.push(this.rel(copy.path));
      // The copy's bytes come back when the name replaced was its inode's last one.
      if (now.nlink === 1) result.freed_bytes += now.size;
    }
    if (result.linked.length === 0 && result.skipped.length > 0) {
      throw new DomainError('conflict', `No copy could be linked: ${result.skipped.map((s) => `${s.path} (${s.reason})`).join('; ')}`);
    }
    this.deps.events.emit('disk.duplicates.linked', 'info', `Linked ${result.linked.length} cop${result.linked.length === 1 ? 'y' : 'ies'} of ${path.basename(keeper.path)} to one file`, {
      sha256,
      kept: result.kept,
      linked: result.linked,
      freed_bytes: result.freed_bytes,
    });
    return result;
  }

  /** Same-sized files hashed (stored hashes reused), grouped by content; only groups of two or more inodes. */
  private async scan(): Promise<{ groups: HashedGroup[]; scanned: number; hashed: number }> {
    const files = [...(await walkFiles(this.deps.folders.models)), ...(await walkFiles(this.deps.folders.llmModels))].filter(
      (file) => !isPartialDownload(file.path) && file.size > 0,
    );
    const bySize = new Map<number, WalkedFile[]>();
    for (const file of files) {
      const list = bySize.get(file.size) ?? [];
      list.push(file);
      bySize.set(file.size, list);
    }
    const candidates = [...bySize.values()].filter((list) => new Set(list.map(inodeKey)).size > 1);
    // One hash per inode: names of one hard-linked file share it.
    const perInode = new Map<string, WalkedFile>();
    for (const file of candidates.flat()) if (!perInode.has(inodeKey(file))) perInode.set(inodeKey(file), file);
    const hashOf = new Map<string, string>();
    let hashed = 0;
    const queue = [...perInode.entries()];
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const [key, file] = next;
        const answer = await this.deps.hashes.hashOf(file).catch(() => null);
        if (!answer) continue;
        if (answer.computed) hashed++;
        hashOf.set(key, answer.sha256);
      }
    };
    await Promise.all(Array.from({ length: HASHED_AT_ONCE }, worker));
    const bySha = new Map<string, HashedGroup>();
    for (const file of candidates.flat()) {
      const sha256 = hashOf.get(inodeKey(file));
      if (!sha256) continue;
      const group = bySha.get(sha256) ?? { sha256, size: file.size, files: [] };
      group.files.push(file);
      bySha.set(sha256, group);
    }
    const groups = [...bySha.values()].filter((group) => new Set(group.files.map(inodeKey)).size > 1);
    return { groups, scanned: files.length, hashed };
  }

  private describe(group: HashedGroup, usage: ModelUsage): DuplicateGroup {
    const copies: DuplicateCopy[] = group.files.map((file) => ({
      path: this.rel(file.path),
      inode: file.ino,
      device: file.dev,
      mtime: new Date(file.mtimeMs).toISOString(),
      catalog: usage.catalog.get(this.rel(file.path)) ?? [],
    }));
    const inodesPerDevice = new Map<number, Set<number>>();
    for (const file of group.files) inodesPerDevice.set(file.dev, (inodesPerDevice.get(file.dev) ?? new Set()).add(file.ino));
    const extraInodes = [...inodesPerDevice.values()].reduce((sum, inodes) => sum + inodes.size - 1, 0);
    const workflows = new Set(group.files.flatMap((file) => usage.workflows.get(path.basename(file.path)) ?? []));
    return {
      sha256: group.sha256,
      size_bytes: group.size,
      copies,
      workflows: [...workflows].sort(),
      reclaimable_bytes: extraInodes * group.size,
      linkable: extraInodes > 0,
    };
  }

  private rel(file: string): string {
    return relativeToRoot(this.deps.folders, file);
  }
}

function inodeKey(file: WalkedFile): string {
  return `${file.dev}:${file.ino}`;
}

/** Put a hard link to `keeper` in place of `copy`: linked under a temporary name, then renamed over it, so `copy` never goes missing. */
async function replaceByLink(keeper: string, copy: string): Promise<void> {
  const tmp = path.join(path.dirname(copy), `.${path.basename(copy)}.${crypto.randomBytes(4).toString('hex')}.link`);
  await fsp.link(keeper, tmp);
  try {
    await fsp.rename(tmp, copy);
  } catch (err) {
    await fsp.rm(tmp, { force: true });
    throw err;
  }
}

/**
 * The asset browser's logic (spec "Assets"): listings, uploads into the engine's input folder,
 * deletes under the path rules, the outputs ZIP and thumbnails. Routes only parse and delegate.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type { Writable } from 'node:stream';
import type { EventBus } from '../events/event-bus.js';
import { DomainError } from '../domain-error.js';
import { listInputs, listOutputs } from './asset-listing.js';
import type { AssetListing, AssetsChange } from '../contracts/assets.contract.js';
import { isContained, isRemovableWithin } from '../http/contained-path.js';
import { checkRelativePath, resolveUnder } from './asset-paths.js';
import type { AssetType } from './asset-types.js';
import type { UploadedFile } from '../http/uploads.js';
import { saveUploads } from './asset-uploads.js';
import { writeDirectoryZip } from './assets-zip.js';
import type { Thumbnails } from './thumbnails.js';
import type { AssetOwners } from './asset-owners.js';
import { OWNER_ACTOR, seesEveryone, type Actor } from '../http/actor.js';

export interface AssetsServiceDeps {
  roots: Record<AssetType, string>;
  events: Pick<EventBus, 'emit'>;
  thumbnails: Thumbnails;
  /** Who each asset belongs to; without it every asset is the owner's (as before people). */
  owners?: AssetOwners;
}

/** Asset operations. */
export class AssetsService {
  constructor(private readonly deps: AssetsServiceDeps) {}

  /** `GET /api/admin/assets/{type}`. */
  list(type: AssetType, actor: Actor = OWNER_ACTOR): AssetListing {
    const root = this.deps.roots[type];
    const listing = type === 'inputs' ? listInputs(root) : listOutputs(root);
    if (seesEveryone(actor)) return listing;
    // A member's listing holds only their own, and counts only their own bytes.
    const files = listing.files.filter((f) => this.reaches(actor, type, f.path));
    const groups = listing.studio_jobs.filter((g) => this.reaches(actor, type, `${g.folder}/`));
    const total = files.reduce((n, f) => n + f.size, 0) + groups.reduce((n, g) => n + g.total_size, 0);
    return { files, studio_jobs: groups, total_size: total };
  }

  /** Whether `actor` may see the asset at `rel` (every asset, without an owners store). */
  private reaches(actor: Actor, type: AssetType, rel: string): boolean {
    return seesEveryone(actor) || (this.deps.owners?.reaches(actor, type, rel) ?? false);
  }

  /** Store uploads in the input folder; `assets.uploaded` when at least one was stored. */
  async upload(files: readonly UploadedFile[], actor: Actor = OWNER_ACTOR): Promise<AssetsChange> {
    if (files.length === 0) throw new DomainError('invalid', 'Upload one or more files in the multipart field "files"');
    const result = await saveUploads(this.deps.roots.inputs, files);
    for (const name of result.uploaded) this.deps.owners?.recordInput(name, actor.userId);
    if (result.uploaded.length > 0) {
      this.deps.events.emit('assets.uploaded', 'info', `Uploaded ${result.uploaded.length} input file(s)`, {
        files: result.uploaded,
        count: result.uploaded.length,
      });
    }
    return result;
  }

  /**
   * Delete files (and top-level folders, i.e. job folders) by relative path. Refused per item:
   * `..`, a leading `/`, hidden names, a nested directory. `assets.deleted` when anything went.
   */
  async delete(type: AssetType, paths: readonly string[], actor: Actor = OWNER_ACTOR): Promise<{ deleted: string[]; errors: string[] }> {
    const root = this.deps.roots[type];
    const deleted: string[] = [];
    const errors: string[] = [];
    for (const raw of paths) {
      const check = checkRelativePath(raw);
      if (!check.ok) {
        errors.push(`${String(raw)}: ${check.reason}`);
        continue;
      }
      const full = resolveUnder(root, check.segments);
      // Another person's asset is, to a member, not there at all.
      const stat = this.reaches(actor, type, check.rel) ? await fsp.lstat(full).catch(() => null) : null;
      // Through a linked folder the path would reach outside: refuse, never delete there.
      if (stat && !isRemovableWithin(root, full)) {
        errors.push(`${raw}: refused (it lies outside the ${type} folder through a link)`);
        continue;
      }
      if (!stat) {
        errors.push(`${raw}: not found`);
        continue;
      }
      try {
        if (stat.isDirectory()) {
          if (check.segments.length > 1) {
            errors.push(`${raw}: nested directories cannot be deleted (delete the files inside, or the whole job folder)`);
            continue;
          }
          await fsp.rm(full, { recursive: true, force: true });
        } else {
          await fsp.rm(full, { force: true });
        }
      } catch (err) {
        errors.push(`${raw}: ${(err as Error).message}`);
        continue;
      }
      deleted.push(raw);
      await this.deps.thumbnails.forget(type, check.rel).catch(() => undefined);
    }
    if (deleted.length > 0) {
      this.deps.events.emit('assets.deleted', 'info', `Deleted ${deleted.length} ${type === 'inputs' ? 'input' : 'output'} item(s)`, {
        type,
        files: deleted,
        count: deleted.length,
      });
    }
    return { deleted, errors };
  }

  /** 404 unless the output directory exists (checked before any byte of the ZIP is sent). */
  assertOutputsExist(): void {
    try {
      if (fs.statSync(this.deps.roots.outputs).isDirectory()) return;
    } catch {}
    throw new DomainError('not_found', 'The output directory does not exist');
  }

  /** Stream the ZIP of every output into `out`. */
  async zipOutputs(out: Writable, signal?: AbortSignal, actor: Actor = OWNER_ACTOR): Promise<void> {
    await writeDirectoryZip(this.deps.roots.outputs, out, signal, (name) => this.reaches(actor, 'outputs', name));
  }

  /** Absolute path of an existing asset file and the folder it must stay in, or a 400/404. */
  filePath(type: AssetType, raw: unknown, actor: Actor = OWNER_ACTOR): { file: string; within: string } {
    const check = checkRelativePath(raw);
    if (!check.ok) throw new DomainError('invalid', `Invalid path: ${check.reason}`);
    const root = this.deps.roots[type];
    const full = resolveUnder(root, check.segments);
    try {
      if (this.reaches(actor, type, check.rel) && fs.statSync(full).isFile() && isContained(root, full)) return { file: full, within: root };
    } catch {}
    throw new DomainError('not_found', `Not found: ${check.rel}`);
  }

  /** The cached thumbnail file of an asset (only of a file that really lies in its folder). */
  async thumbnail(type: AssetType, raw: unknown, actor: Actor = OWNER_ACTOR): Promise<{ file: string; within: string }> {
    const { file } = this.filePath(type, raw, actor);
    const rel = (checkRelativePath(raw) as { rel: string }).rel;
    return { file: await this.deps.thumbnails.get(type, file, rel), within: this.deps.thumbnails.cacheDir };
  }
}

/**
 * Studio's copies of the input images it uploads to the engine. With an engine whose input
 * folder is its own, Studio keeps a copy in its input folder (so the assets listing and the job
 * ZIP have it, as with a shared folder); an input uploaded for a prompt the engine then refused is
 * removed again. Names come from the engine (`subfolder/name`), so both follow the rule the rest
 * of Studio uses (`http/contained-path.ts`): real paths, links resolved, must stay inside the
 * input folder — a linked subfolder must not carry a write or a delete elsewhere.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { isBelow, isContained, isRemovableWithin } from '../http/contained-path.js';

export interface InputCopiesDeps {
  /** Studio's input folder. */
  dir: string;
  /** True when the engine reads and writes that same folder (nothing to copy then). */
  shared: () => boolean;
}

export class InputCopies {
  constructor(private readonly deps: InputCopiesDeps) {}

  /** Copy the uploaded `tmpFile` to `storedName` unless the engine's input folder is Studio's. */
  async keep(tmpFile: string, storedName: string): Promise<void> {
    if (this.deps.shared()) return;
    await this.store(tmpFile, storedName);
  }

  /** Copy the uploaded `tmpFile` into Studio's input folder as `storedName` (no engine took it: one by URL gets it at hand-over). */
  async store(tmpFile: string, storedName: string): Promise<void> {
    const target = this.target(storedName);
    // Folders are made only below an existing one that really is inside (not through a link out).
    if (!target || !isContained(this.deps.dir, existingAncestor(path.dirname(target)))) return;
    await fsp.mkdir(path.dirname(target), { recursive: true });
    if (!isRemovableWithin(this.deps.dir, target)) return;
    // A fresh name created exclusively: a planted link in its place is never followed.
    const part = `${target}.${crypto.randomBytes(6).toString('hex')}.part`;
    try {
      await fsp.copyFile(tmpFile, part, fsp.constants.COPYFILE_EXCL);
      await fsp.rename(part, target);
    } catch (err) {
      await fsp.rm(part, { force: true });
      throw err;
    }
  }

  /**
   * Remove an input from Studio's input folder: the engine's own when it is shared (the engine has
   * no delete route), else Studio's copy; an unshared engine folder keeps its file.
   */
  async remove(storedName: string): Promise<void> {
    const target = this.target(storedName);
    if (target && isRemovableWithin(this.deps.dir, target)) await fsp.rm(target, { force: true });
  }

  /** True when Studio's input folder has `storedName` (a `sub/name` inside it). */
  has(storedName: string): boolean {
    const target = this.target(storedName);
    return target !== null && fs.existsSync(target) && isContained(this.deps.dir, target);
  }

  /** The path `storedName` names inside the input folder, or null when it names none. */
  private target(storedName: string): string | null {
    const root = path.resolve(this.deps.dir);
    const target = path.resolve(root, storedName);
    return isBelow(root, target) ? target : null;
  }
}

/** `dir`, or its nearest ancestor that exists. */
function existingAncestor(dir: string): string {
  let current = dir;
  while (!fs.existsSync(current) && path.dirname(current) !== current) current = path.dirname(current);
  return current;
}

/**
 * Job output folders under `assets/output/<job folder>/{final,preview,intermediate}` and the
 * `.incomplete` marker that says a job is still writing into its folder.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileStamp } from '../time.js';

const JOB_SUBFOLDERS = ['final', 'preview', 'intermediate'] as const;
const INCOMPLETE_MARKER = '.incomplete';

/**
 * `<workflow>_<YYYYMMDD-HHMMSS>_<6 hex>`: sortable by time, unique, safe as one path segment. The
 * time is the box's local time, the instant the UI shows beside it (`fileStamp`).
 */
export function newJobFolderName(workflowId: string, now = new Date()): string {
  const safe = workflowId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 60) || 'job';
  return `${safe}_${fileStamp(now)}_${crypto.randomBytes(3).toString('hex')}`;
}

export class JobFolders {
  constructor(readonly outputDir: string) {}

  /** Absolute path of a job folder; refuses names that are not a single safe segment. */
  pathOf(folder: string): string {
    if (!folder || folder.includes('/') || folder.includes('\\') || folder.startsWith('.') || folder.includes('..')) {
      throw new Error(`invalid job folder name "${folder}"`);
    }
    return path.join(this.outputDir, folder);
  }

  /** Create the folder, its subfolders and the `.incomplete` marker. */
  create(folder: string): void {
    const dir = this.pathOf(folder);
    for (const sub of JOB_SUBFOLDERS) fs.mkdirSync(path.join(dir, sub), { recursive: true });
    fs.writeFileSync(path.join(dir, INCOMPLETE_MARKER), `${new Date().toISOString()}\n`);
  }

  /** Remove the `.incomplete` marker (the job finished). */
  markDone(folder: string): void {
    fs.rmSync(path.join(this.pathOf(folder), INCOMPLETE_MARKER), { force: true });
  }

  /** Delete the folder and everything in it; true when something was removed. */
  remove(folder: string): boolean {
    const dir = this.pathOf(folder);
    if (!fs.existsSync(dir)) return false;
    fs.rmSync(dir, { recursive: true, force: true });
    return true;
  }

  exists(folder: string): boolean {
    try {
      return fs.statSync(this.pathOf(folder)).isDirectory();
    } catch {
      return false;
    }
  }
}

/**
 * New installs under way, one small file each (`<name>.json`): written before the clone moves into
 * `custom_nodes`, removed once the install is recorded or rolled back. A file still there at the
 * next install means Studio stopped in the middle (a crash, a kill, a power cut), so the folder of
 * that name is Studio's own unfinished work, not a package someone put there by other means.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../fs-durable.js';

export interface UnfinishedInstall {
  url: string;
  /** The commit being installed: a folder at another commit is not the one Studio left. */
  commit: string;
  snapshot_id: string;
  started_at: string;
}

export class UnfinishedInstallStore {
  constructor(private readonly dir: string) {}

  async get(name: string): Promise<UnfinishedInstall | null> {
    const file = this.file(name);
    if (!fs.existsSync(file)) return null;
    try {
      return JSON.parse(await fsp.readFile(file, 'utf8')) as UnfinishedInstall;
    } catch {
      // Cut short while written (the crash this file is for): the install did not finish either.
      return { url: '', commit: '', snapshot_id: '', started_at: '' };
    }
  }

  async set(name: string, entry: UnfinishedInstall): Promise<void> {
    await writeFileAtomic(this.file(name), JSON.stringify(entry));
  }

  async clear(name: string): Promise<void> {
    await fsp.rm(this.file(name), { force: true });
  }

  private file(name: string): string {
    return path.join(this.dir, `${name}.json`);
  }
}

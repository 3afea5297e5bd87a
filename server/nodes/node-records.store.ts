/**
 * What Studio installed, per node package: origin, commit, and the Python packages its install
 * added (so an uninstall can list the ones it alone brought). One JSON file, written to a
 * temporary name and renamed; a package installed by other means simply has no record.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { writeFileAtomic } from '../fs-durable.js';

export interface NodeRecord {
  url: string;
  commit: string;
  installed_at: string;
  /** Python packages (normalized names) that were not installed before this package came. */
  python_added: string[];
}

export class NodeRecordStore {
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly file: string) {}

  async all(): Promise<Record<string, NodeRecord>> {
    if (!fs.existsSync(this.file)) return {};
    return JSON.parse(await fsp.readFile(this.file, 'utf8')) as Record<string, NodeRecord>;
  }

  /** Change one record (null removes it); writes are serialized. */
  set(name: string, record: NodeRecord | null): Promise<void> {
    const run = this.chain.then(async () => {
      const all = await this.all();
      if (record) all[name] = record;
      else delete all[name];
      await writeFileAtomic(this.file, JSON.stringify(all, null, 1));
    });
    this.chain = run.catch(() => undefined);
    return run;
  }
}

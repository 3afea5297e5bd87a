/**
 * First-boot seeding of `STUDIO_DIR/workflows` from the shipped `workflows/`. `index.json` is the
 * commit marker: it is written last, and a folder that has one is never touched again.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pathExists } from '../fs-durable.js';

export interface SeedResult {
  seeded: boolean;
  /** Top-level entries copied (workflow folders, README.md, index.json). */
  copied: string[];
}

/**
 * Copy `shippedDir` to `targetDir` unless `targetDir/index.json` exists. A fresh target is built
 * in a hidden sibling and renamed into place; a target left without an index (an interrupted
 * seed, or folders a user made) gets only the missing entries, each copied then renamed, and
 * existing folders are kept as they are.
 */
export async function seedWorkflows(shippedDir: string, targetDir: string): Promise<SeedResult> {
  const indexFile = path.join(targetDir, 'index.json');
  if (await pathExists(indexFile)) return { seeded: false, copied: [] };
  const entries = (await fs.readdir(shippedDir)).filter((name) => !name.startsWith('.')).sort();
  await fs.mkdir(path.dirname(targetDir), { recursive: true });

  if (!(await pathExists(targetDir))) {
    const temp = path.join(path.dirname(targetDir), `.${path.basename(targetDir)}.seeding-${suffix()}`);
    try {
      await fs.cp(shippedDir, temp, { recursive: true, filter: (source) => !path.basename(source).startsWith('.') || source === shippedDir });
      await fs.rename(temp, targetDir);
      return { seeded: true, copied: entries };
    } catch (error) {
      await fs.rm(temp, { recursive: true, force: true });
      // Another process seeded first: its copy stands.
      if (await pathExists(indexFile)) return { seeded: false, copied: [] };
      throw error;
    }
  }

  const copied: string[] = [];
  const ordered = [...entries.filter((name) => name !== 'index.json'), ...entries.filter((name) => name === 'index.json')];
  for (const name of ordered) {
    const destination = path.join(targetDir, name);
    if (name !== 'index.json' && (await pathExists(destination))) continue;
    const temp = path.join(targetDir, `.${name}.seeding-${suffix()}`);
    try {
      await fs.cp(path.join(shippedDir, name), temp, { recursive: true });
      await fs.rename(temp, destination);
      copied.push(name);
    } catch (error) {
      await fs.rm(temp, { recursive: true, force: true });
      throw error;
    }
  }
  return { seeded: true, copied };
}

function suffix(): string {
  return randomBytes(4).toString('hex');
}

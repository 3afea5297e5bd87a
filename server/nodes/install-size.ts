/**
 * How much disk a node install needs, for the free-space guard: the clone as it is on disk plus
 * an allowance per Python package pip would add or change. pip's dry-run report names packages
 * but not their sizes, and an unpacked wheel is a few times its download; 50 MB covers the
 * usual node dependencies (torch-sized ones are held, so never installed by a node package).
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { PythonChanges } from '../contracts/nodes.contract.js';

const PIP_PACKAGE_ALLOWANCE_BYTES = 50e6;

/** Bytes of the files under `dir` (symbolic links not followed). */
async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await fsp.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await folderBytes(full);
    else if (entry.isFile()) total += (await fsp.lstat(full)).size;
  }
  return total;
}

/** The clone's size (it is moved or copied into `custom_nodes`) plus the Python allowance. */
export async function installBytes(clone: string, python: PythonChanges): Promise<number> {
  const changed = python.added.length + python.upgraded.length + python.downgraded.length;
  return (await folderBytes(clone)) + changed * PIP_PACKAGE_ALLOWANCE_BYTES;
}

/**
 * Whether a model file is on disk under `STUDIO_DIR/models/<dest>/`. The catalogs know each
 * file's `dest`; for a file in no catalog every folder directly under `models/` is tried.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isSafeRelativeName } from './params.js';

/** An `isPresent(file)` for `readiness`; make one per request (it caches only the folder list). */
export function createModelPresence(modelsDir: string, destOf: (file: string) => string | undefined): (file: string) => boolean {
  let folders: string[] | undefined;
  const allFolders = (): string[] => {
    folders ??= listFolders(modelsDir);
    return folders;
  };
  return (file: string): boolean => {
    if (!isSafeRelativeName(file)) return false;
    const dest = destOf(file);
    if (dest !== undefined) return isFile(path.join(modelsDir, dest, file));
    return allFolders().some((folder) => isFile(path.join(modelsDir, folder, file)));
  };
}

function listFolders(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}

function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

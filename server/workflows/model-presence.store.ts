/**
 * Whether a model file is on disk under `STUDIO_DIR/models/<dest>/`. The catalogs know each
 * file's `dest`; for a file in no catalog every folder directly under `models/` is tried.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isSafeRelativeName } from './params.js';

/** An `isPresent(file)` for `readiness`; make one per request (it caches only the folder list). A file `isShort` calls cut off does not count. */
export function createModelPresence(
  modelsDir: string,
  destOf: (file: string) => string | undefined,
  isShort: (file: string, bytes: number) => boolean = () => false,
): (file: string) => boolean {
  let folders: string[] | undefined;
  return (file: string): boolean => {
    if (!isSafeRelativeName(file)) return false;
    const dest = destOf(file);
    return (dest !== undefined ? [dest] : (folders ??= listFolders(modelsDir))).some((folder) => {
      const bytes = fileBytes(path.join(modelsDir, folder, file));
      return bytes >= 0 && !isShort(file, bytes);
    });
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

/** The size of a regular file, -1 when there is none. */
function fileBytes(file: string): number {
  try {
    const stat = fs.statSync(file);
    return stat.isFile() ? stat.size : -1;
  } catch {
    return -1;
  }
}

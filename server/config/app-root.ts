/**
 * Where Studio's own files are: the code (package.json, dist/) and the shipped `workflows/` and
 * `resources/`, which a packaged app keeps outside app.asar.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the project's code lives (package.json, dist/; inside app.asar when packaged). */
export const APP_ROOT = findAppRoot(path.dirname(fileURLToPath(import.meta.url)));

/**
 * Where the shipped `workflows/` and `resources/` live: beside the code in a checkout, and in
 * Electron's resources folder in a packaged app (electron-builder's extraResources).
 */
export const SHIPPED_ROOT = findShippedRoot();

/** The version in package.json ("0.0.0" when it cannot be read). */
export function readVersion(): string {
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(APP_ROOT, 'package.json'), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

function findAppRoot(start: string): string {
  let dir = start;
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    // No package.json above us: guess the checkout root, two levels above server/config/.
    if (parent === dir) return path.resolve(start, '..', '..');
    dir = parent;
  }
}

function findShippedRoot(): string {
  const resourcesPath = (process as { resourcesPath?: string }).resourcesPath;
  if (resourcesPath && fs.existsSync(path.join(resourcesPath, 'workflows')) && fs.existsSync(path.join(resourcesPath, 'resources'))) {
    return resourcesPath;
  }
  return APP_ROOT;
}

/**
 * The versions installed here: backend, frontend and runtime from the installed `version.json`;
 * the catalogs and the workflows from the data directory (they change as the user adds entries
 * and as sync copies them), so status and update compare what is really in use.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { readVersionFile, runtimeVersionOf } from './version-file.js';
import type { ComponentName, ComponentVersion, VersionFile, VersionSummary } from '../contracts/system.contract.js';

export interface LocalVersionPaths {
  /** `<appDir>/resources/version.json`. */
  versionFile: string;
  /** `STUDIO_DIR/catalogs`. */
  catalogsDir: string;
  /** `STUDIO_DIR/workflows`. */
  workflowsDir: string;
}

/** What the status and update code learn about this installation. */
export interface LocalVersions {
  /** The installed version.json, or null when it is missing or unreadable. */
  file: VersionFile | null;
  summary: VersionSummary;
  runtimeVersion: number;
  /** Components whose version source could not be read. */
  missing: Set<ComponentName>;
  workflowCount: number;
}

/** The catalog file names of the data components. */
export const CATALOG_FILES = { models: 'models.json', loras: 'loras.json', llm_models: 'llm_models.json' } as const;

/** Read every version source; a missing one is reported in `missing`, never thrown. */
export async function readLocalVersions(paths: LocalVersionPaths, fallbackAppVersion: string): Promise<LocalVersions> {
  const missing = new Set<ComponentName>();
  const file = await readVersionFile(paths.versionFile).catch(() => null);
  const components: Partial<Record<ComponentName, ComponentVersion>> = {};
  for (const name of ['runtime', 'backend', 'frontend'] as const) {
    const entry = file?.components[name];
    if (entry) components[name] = { version: entry.version, date: entry.date };
    else missing.add(name);
  }
  if (file && !components.runtime) {
    components.runtime = { version: runtimeVersionOf(file), date: file.date };
    missing.delete('runtime');
  }
  for (const [name, fileName] of Object.entries(CATALOG_FILES) as Array<[keyof typeof CATALOG_FILES, string]>) {
    const head = await readHead(path.join(paths.catalogsDir, fileName));
    if (head) components[name] = { version: head.version, date: head.date };
    else missing.add(name);
  }
  const index = await readHead(path.join(paths.workflowsDir, 'index.json'));
  if (index) components.workflows = { version: index.version, date: index.date };
  else missing.add('workflows');
  return {
    file,
    summary: { app_version: file?.app_version ?? fallbackAppVersion, min_runtime: file?.min_runtime ?? 0, components },
    runtimeVersion: file ? runtimeVersionOf(file) : 0,
    missing,
    workflowCount: index?.workflows ?? 0,
  };
}

/** `{version, date}` and the number of workflows of a catalog file or workflow index; null when unreadable. */
async function readHead(file: string): Promise<{ version: number; date: string; workflows: number } | null> {
  try {
    const raw = JSON.parse(await fs.readFile(file, 'utf8')) as { version?: unknown; date?: unknown; workflows?: unknown };
    if (typeof raw.version !== 'number') return null;
    return { version: raw.version, date: typeof raw.date === 'string' ? raw.date : '', workflows: Array.isArray(raw.workflows) ? raw.workflows.length : 0 };
  } catch {
    return null;
  }
}

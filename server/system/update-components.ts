/**
 * What each component is on disk, and how its new version is built from the clone:
 * - backend: `server/` and `dist/server/` of the installed code (`STUDIO_APP_DIR`), whichever
 *   the repository carries, replaced whole;
 * - frontend: each entry the repository carries under `renderer/` (a local build it does not
 *   carry stays);
 * - models, loras, llm_models: `STUDIO_DIR/catalogs/*.json`, merged (user-added entries kept);
 * - workflows: `STUDIO_DIR/workflows`, newer workflows copied one by one.
 * `resources/version.json` of the installed code is rewritten with the versions now in place.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { catalogSchemaFor } from '../contracts/catalog.contract.js';
import { writeMergedCatalog } from './catalog-merge.js';
import { CATALOG_FILES } from './local-versions.js';
import type { SwapTarget } from './staged-swap.js';
import type { UpdatableComponent, VersionFile } from '../contracts/system.contract.js';
import { buildWorkflowsDir, planWorkflowSync } from './workflow-sync.js';

export interface ComponentPaths {
  appDir: string;
  catalogsDir: string;
  workflowsDir: string;
  /** Root of the clone. */
  repoDir: string;
}

const CATALOG_KIND = { models: 'models', loras: 'loras', llm_models: 'llm' } as const;

/** The swap targets that install `name` from the clone; throws when the clone lacks it. */
export async function componentTargets(name: UpdatableComponent, p: ComponentPaths): Promise<SwapTarget[]> {
  const copy = (from: string) => (staging: string) => fsp.cp(from, staging, { recursive: true });
  switch (name) {
    case 'backend': {
      const rels = ['server', path.join('dist', 'server')].filter((rel) => fs.existsSync(path.join(p.repoDir, rel)));
      if (rels.length === 0) throw new Error('the repository has no server/ to update the backend from');
      return rels.map((rel) => ({ target: path.join(p.appDir, rel), build: copy(path.join(p.repoDir, rel)) }));
    }
    case 'frontend': {
      const entries = await fsp.readdir(path.join(p.repoDir, 'renderer')).catch(() => [] as string[]);
      if (entries.length === 0) throw new Error('the repository has no renderer/ to update the frontend from');
      return entries.map((entry) => ({ target: path.join(p.appDir, 'renderer', entry), build: copy(path.join(p.repoDir, 'renderer', entry)) }));
    }
    case 'models':
    case 'loras':
    case 'llm_models': {
      const file = CATALOG_FILES[name];
      const local = path.join(p.catalogsDir, file);
      const remote = path.join(p.repoDir, 'resources', 'catalogs', file);
      return [{ target: local, build: (staging) => writeMergedCatalog(local, remote, staging, catalogSchemaFor(CATALOG_KIND[name])) }];
    }
    case 'workflows': {
      const remoteDir = path.join(p.repoDir, 'workflows');
      const plan = await planWorkflowSync(p.workflowsDir, remoteDir);
      return [{ target: p.workflowsDir, build: (staging) => buildWorkflowsDir(p.workflowsDir, remoteDir, staging, plan) }];
    }
  }
}

/** The installed `version.json` after `updated` came from `remote`. */
export function updatedVersionFile(local: VersionFile | null, remote: VersionFile, updated: readonly UpdatableComponent[]): VersionFile {
  const next: VersionFile = local ? structuredClone(local) : { ...structuredClone(remote), components: {} };
  for (const name of updated) {
    const entry = remote.components[name];
    if (entry) next.components[name] = { ...entry };
  }
  if (updated.includes('backend')) {
    // The app version is the backend's: the code that now runs.
    next.app_version = remote.app_version;
    next.date = remote.date;
    next.min_runtime = remote.min_runtime;
  }
  return next;
}

/** The swap target that writes `file` at the installed `version.json`. */
export function versionFileTarget(appDir: string, file: VersionFile): SwapTarget {
  return {
    target: path.join(appDir, 'resources', 'version.json'),
    build: (staging) => fsp.writeFile(staging, `${JSON.stringify(file, null, 2)}\n`),
  };
}

/**
 * Fixtures for the update tests: a bare git repository served as REPO_URL (pushed to from a
 * work tree the test edits), an installed app directory with its own `version.json`, and a data
 * directory whose models catalog already holds an entry the user added.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { APP_ROOT } from '../../../server/config.js';

export interface UpdateRepo {
  /** `file://` URL of the bare repository. */
  url: string;
  /** Write files into the work tree (JSON values are serialised) and push a commit. */
  push(files: Record<string, unknown>, message: string): void;
  /** Read a JSON file of the work tree (to derive the next version). */
  read<T>(rel: string): T;
}

export const USER_ENTRY = { name: 'My own checkpoint', file: 'my-own.safetensors', dest: 'checkpoints', size_gb: 2, tags: [], source: 'modelhub', modelhub_version_id: 4242 };

export function versionJson(overrides: { app?: string; minRuntime?: number; backend?: string; frontend?: string; models?: number; workflows?: number }): Record<string, unknown> {
  const date = '2026-11-24 10:00';
  return {
    app_version: overrides.app ?? '1.0.0',
    date,
    min_runtime: overrides.minRuntime ?? 1,
    runtime_version: 1,
    components: {
      runtime: { version: 1, date },
      backend: { version: overrides.backend ?? '1.0.0', date },
      frontend: { version: overrides.frontend ?? '1.0.0', date },
      models: { version: overrides.models ?? 1, date },
      loras: { version: 1, date },
      llm_models: { version: 1, date },
      workflows: { version: overrides.workflows ?? 1, date },
    },
  };
}

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', '-c', 'init.defaultBranch=main', ...args], { cwd, stdio: 'pipe' });
}

function writeTree(root: string, files: Record<string, unknown>): void {
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(root, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`);
  }
}

/** A bare repository whose first commit mirrors the shipped catalogs and workflows at version 1. */
export function createUpdateRepo(tmp: string): UpdateRepo {
  const bare = path.join(tmp, 'studio.git');
  const work = path.join(tmp, 'work');
  fs.mkdirSync(bare);
  git(bare, 'init', '--bare', '-q');
  fs.mkdirSync(work);
  git(work, 'init', '-q');
  fs.cpSync(path.join(APP_ROOT, 'resources', 'catalogs'), path.join(work, 'resources', 'catalogs'), { recursive: true });
  fs.cpSync(path.join(APP_ROOT, 'workflows'), path.join(work, 'workflows'), { recursive: true });
  writeTree(work, { 'resources/version.json': versionJson({}), 'server/marker.txt': 'backend 1.0.0\n', 'renderer/index.html': 'frontend 1.0.0\n' });
  git(work, 'add', '-A');
  git(work, 'commit', '-q', '-m', 'v1');
  git(work, 'remote', 'add', 'origin', bare);
  git(work, 'push', '-q', 'origin', 'HEAD:main');
  return {
    url: `file://${bare}`,
    push(files, message) {
      writeTree(work, files);
      git(work, 'add', '-A');
      git(work, 'commit', '-q', '-m', message);
      git(work, 'push', '-q', 'origin', 'HEAD:main');
    },
    read: <T>(rel: string) => JSON.parse(fs.readFileSync(path.join(work, rel), 'utf8')) as T,
  };
}

/** The installed code at 1.0.0: `server/`, `renderer/` with a local build, `resources/version.json`. */
export function createAppDir(tmp: string): string {
  const app = path.join(tmp, 'app');
  writeTree(app, {
    'resources/version.json': versionJson({}),
    'server/marker.txt': 'backend 1.0.0\n',
    'renderer/index.html': 'frontend 1.0.0\n',
    'renderer/dist/index.html': 'local build\n',
  });
  return app;
}

/** A data directory whose models catalog holds the shipped entries plus one the user added. */
export function createDataDir(tmp: string): string {
  const dir = path.join(tmp, 'data');
  const catalog = JSON.parse(fs.readFileSync(path.join(APP_ROOT, 'resources', 'catalogs', 'models.json'), 'utf8')) as { categories: Array<{ id: string; models: unknown[] }> };
  catalog.categories.find((c) => c.id === 'checkpoints')!.models.push(USER_ENTRY);
  writeTree(dir, { 'catalogs/models.json': catalog });
  return dir;
}

/** A fresh temp root removed by the caller. */
export function tempRoot(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'studio-update-'));
}

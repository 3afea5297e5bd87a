/**
 * Update from git against a real Studio: a local bare repository as REPO_URL with version bumps,
 * skip lists, a blocked min_runtime, a copy that fails midway, the syncs and their 409 before a
 * remote-version check. The installed code is a temp app directory (STUDIO_APP_DIR).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CatalogFile } from '../../../server/contracts/catalog.contract.js';
import type { StudioEvent } from '../../../server/contracts/events.contract.js';
import type { SystemStatus, VersionFile, VersionSummary } from '../../../server/contracts/system.contract.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { until } from '../../helpers/studio-ws.js';
import { createAppDir, createDataDir, createUpdateRepo, tempRoot, USER_ENTRY, versionJson, type UpdateRepo } from './update-fixture.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

interface UpdateBody {
  updated: string[];
  restart_needed: boolean;
  message: string;
  debug?: { local_version_json: VersionFile | null; remote_version_json: VersionFile };
}

interface Setup {
  t: TestStudio;
  repo: UpdateRepo;
  app: string;
  relaunches: number[];
}

async function setup(env: Record<string, string> = {}): Promise<Setup> {
  const tmp = tempRoot();
  cleanups.push(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const repo = createUpdateRepo(tmp);
  const app = createAppDir(tmp);
  const relaunches: number[] = [];
  const t = await startTestStudio({ dir: createDataDir(tmp), env: { REPO_URL: repo.url, STUDIO_APP_DIR: app, ...env }, relaunch: () => void relaunches.push(Date.now()) });
  cleanups.push(() => t.stop());
  return { t, repo, app, relaunches };
}

const post = (t: TestStudio, p: string, body?: unknown) =>
  t.api(p, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

async function ok<T = Record<string, unknown>>(res: Promise<Response>): Promise<T> {
  const r = await res;
  const body = (await r.json()) as T;
  expect(r.status, JSON.stringify(body)).toBe(200);
  return body;
}

const read = (file: string) => fs.readFileSync(file, 'utf8');
const readJson = <T>(file: string) => JSON.parse(read(file)) as T;

/** The models catalog of the repository's work tree with one new entry and a new version. */
function newerModels(repo: UpdateRepo, version: number): CatalogFile {
  const catalog = repo.read<CatalogFile>('resources/catalogs/models.json');
  const checkpoints = catalog.categories.find((c) => c.id === 'checkpoints')!;
  if (!checkpoints.models.some((m) => m.file === 'from-repo.safetensors')) {
    checkpoints.models.push({ name: 'From the repository', file: 'from-repo.safetensors', dest: 'checkpoints', size_gb: 1, tags: [], source: 'modelhub', modelhub_version_id: '777' });
  }
  return { ...catalog, version };
}

async function events(t: TestStudio, types: string): Promise<StudioEvent[]> {
  return (await (await t.api(`/api/admin/events?types=${types}`)).json()) as StudioEvent[];
}

describe('GET /api/admin/system/remote-version', () => {
  it('clones REPO_URL into .repo/ and compares both version.json files', async () => {
    const { t, repo } = await setup();
    repo.push({ 'resources/version.json': versionJson({ app: '1.1.0', backend: '1.1.0' }) }, 'v1.1');
    const body = await ok<{ remote: VersionSummary; local: VersionSummary }>(t.api('/api/admin/system/remote-version'));
    expect(body.remote).toMatchObject({ app_version: '1.1.0', min_runtime: 1, components: { backend: { version: '1.1.0' }, runtime: { version: 1 } } });
    expect(body.local).toMatchObject({ app_version: '1.0.0', min_runtime: 1, components: { backend: { version: '1.0.0' }, models: { version: 1 }, workflows: { version: 1 } } });
    expect(fs.existsSync(path.join(t.dir, '.repo', '.git'))).toBe(true);
    // A second check fetches what was pushed since.
    repo.push({ 'resources/version.json': versionJson({ app: '1.2.0', backend: '1.2.0' }) }, 'v1.2');
    expect((await ok<{ remote: { app_version: string } }>(t.api('/api/admin/system/remote-version'))).remote.app_version).toBe('1.2.0');
  });

  it('answers 500 {detail} when the repository cannot be reached or is not configured', async () => {
    const { t } = await setup({ REPO_URL: 'file:///nonexistent/studio.git' });
    const res = await t.api('/api/admin/system/remote-version');
    expect(res.status).toBe(500);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/git clone of the update repository failed/);
    const bare = await startTestStudio();
    cleanups.push(() => bare.stop());
    const unset = await bare.api('/api/admin/system/remote-version');
    expect(unset.status).toBe(500);
    expect(await unset.json()).toEqual({ detail: expect.stringMatching(/REPO_URL is not set/) });
  });
});

describe('POST /api/admin/system/update', () => {
  it('copies newer components (skip list honoured, runtime never), keeps user entries, then restarts after 1 s', async () => {
    const { t, repo, app, relaunches } = await setup();
    repo.push(
      {
        'resources/version.json': versionJson({ app: '1.1.0', backend: '1.1.0', models: 5, workflows: 2 }),
        'resources/catalogs/models.json': newerModels(repo, 5),
        'server/marker.txt': 'backend 1.1.0\n',
        'renderer/index.html': 'frontend 1.1.0 (version not bumped)\n',
      },
      'v1.1',
    );
    const body = await ok<UpdateBody>(post(t, '/api/admin/system/update', { skip_components: ['workflows', 'runtime'] }));
    expect(body).toMatchObject({ updated: ['backend', 'models'], restart_needed: true, message: 'Updated: backend, models' });
    expect(body.debug?.local_version_json).toMatchObject({ app_version: '1.0.0' });
    expect(body.debug?.remote_version_json).toMatchObject({ app_version: '1.1.0' });
    // Rule 5: the answer comes first, the restart a second later.
    expect(relaunches).toEqual([]);
    await until(() => relaunches.length === 1 || undefined, 'the relaunch');

    expect(read(path.join(app, 'server', 'marker.txt'))).toBe('backend 1.1.0\n');
    expect(read(path.join(app, 'renderer', 'index.html'))).toBe('frontend 1.0.0\n');
    expect(read(path.join(app, 'renderer', 'dist', 'index.html'))).toBe('local build\n');
    const models = readJson<CatalogFile>(path.join(t.dir, 'catalogs', 'models.json'));
    expect(models.version).toBe(5);
    const files = models.categories.flatMap((c) => c.models.map((m) => m.file));
    expect(files).toEqual(expect.arrayContaining(['from-repo.safetensors', USER_ENTRY.file, 'sd_xl_base_1.0.safetensors']));
    expect(readJson<{ version: number }>(path.join(t.dir, 'workflows', 'index.json')).version).toBe(1);
    const installed = readJson<VersionFile>(path.join(app, 'resources', 'version.json'));
    expect(installed).toMatchObject({ app_version: '1.1.0', components: { backend: { version: '1.1.0' }, frontend: { version: '1.0.0' }, workflows: { version: 1 }, models: { version: 5 } } });
    // The catalog in memory follows the file.
    const live = await ok<{ categories: Array<{ models: Array<{ file: string }> }> }>(t.api('/api/admin/models'));
    expect(live.categories.flatMap((c) => c.models.map((m) => m.file))).toContain('from-repo.safetensors');
    const status = await ok<SystemStatus>(t.api('/api/admin/system/status'));
    expect(status).toMatchObject({ app_version: '1.1.0', components: { backend: { version: '1.1.0' }, models: { version: 5 } } });

    // Rule 6 and system.updated, in order; no staging or backup of an older update is left behind.
    const log = await events(t, 'system.maintenance,system.updated,system.restart');
    expect(log.map((e) => `${e.type}:${String(e.data.active ?? '')}`)).toEqual(['system.maintenance:true', 'system.maintenance:false', 'system.updated:', 'system.restart:']);
    expect(log.find((e) => e.type === 'system.updated')).toMatchObject({ severity: 'success', message: 'Updated: backend, models', data: { updated: ['backend', 'models'], from: '1.0.0', to: '1.1.0' } });
    expect(fs.readdirSync(app).filter((n) => n.includes('.staging-'))).toEqual([]);

    // Rule 3: nothing newer (workflows still skipped).
    const again = await ok<UpdateBody>(post(t, '/api/admin/system/update', { skip_components: ['workflows'] }));
    expect(again).toMatchObject({ updated: [], restart_needed: false, message: expect.stringMatching(/up to date/) });
    expect(again.debug).toBeDefined();
    const all = await ok<UpdateBody>(post(t, '/api/admin/system/update'));
    expect(all).toMatchObject({ updated: ['workflows'], restart_needed: true });
  });

  it('is blocked when the remote min_runtime is above the local runtime', async () => {
    const { t, repo, app, relaunches } = await setup();
    repo.push({ 'resources/version.json': versionJson({ app: '2.0.0', backend: '2.0.0', minRuntime: 2 }), 'server/marker.txt': 'backend 2.0.0\n' }, 'v2');
    const body = await ok(post(t, '/api/admin/system/update', {}));
    expect(body).toEqual({ updated: [], restart_needed: false, blocked: true, message: expect.stringMatching(/runtime 2/), remote_min_runtime: 2, local_runtime: 1 });
    expect(read(path.join(app, 'server', 'marker.txt'))).toBe('backend 1.0.0\n');
    expect(await events(t, 'system.updated,system.maintenance')).toEqual([]);
    expect(relaunches).toEqual([]);
  });

  it('rolls back a copy that fails midway and leaves the previous version running', async () => {
    const { t, repo, app, relaunches } = await setup();
    const broken = { ...newerModels(repo, 6), categories: 'not a list' };
    repo.push(
      {
        'resources/version.json': versionJson({ app: '1.5.0', backend: '1.5.0', models: 6, workflows: 2 }),
        'server/marker.txt': 'backend 1.5.0\n',
        'resources/catalogs/models.json': broken,
      },
      'broken catalog',
    );
    const res = await post(t, '/api/admin/system/update', {});
    expect(res.status).toBe(500);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/previous version stays.*models\.json/);
    expect(read(path.join(app, 'server', 'marker.txt'))).toBe('backend 1.0.0\n');
    expect(readJson<{ app_version: string }>(path.join(app, 'resources', 'version.json')).app_version).toBe('1.0.0');
    expect(readJson<{ version: number }>(path.join(t.dir, 'workflows', 'index.json')).version).toBe(1);
    expect(fs.readdirSync(app).filter((n) => n.startsWith('.'))).toEqual([]);
    expect(fs.readdirSync(t.dir).filter((n) => n.includes('.staging-'))).toEqual([]);
    // Maintenance is over and Studio keeps serving; no restart, no system.updated.
    expect((await t.api('/api/admin/system/uptime')).status).toBe(200);
    expect((await events(t, 'system.updated')).length).toBe(0);
    expect((await events(t, 'system.update.failed')).length).toBe(1);
    // A restart is scheduled (and its event written) before the update answers: none was.
    expect(await events(t, 'system.restart')).toEqual([]);
    expect(relaunches).toEqual([]);
  });

  it('refuses unknown skip_components with 400', async () => {
    const { t } = await setup();
    const res = await post(t, '/api/admin/system/update', { skip_components: ['backend', 'kernel'] });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/skip_components: unknown component kernel/);
    expect((await post(t, '/api/admin/system/update', { skip_components: 'backend' })).status).toBe(400);
  });
});

describe('POST /api/admin/workflows/sync and /api/admin/models/sync', () => {
  it('answer 409 before any remote-version check', async () => {
    const { t } = await setup();
    for (const p of ['/api/admin/workflows/sync', '/api/admin/models/sync']) {
      const res = await post(t, p);
      expect(res.status).toBe(409);
      expect(((await res.json()) as { detail: string }).detail).toMatch(/check for updates first/);
    }
  });

  it('copy newer workflows and catalogs from the clone, and nothing the second time', async () => {
    const { t, repo } = await setup();
    const index = repo.read<{ version: number; date: string; workflows: Array<{ id: string; version: number; date: string }> }>('workflows/index.json');
    index.version = 2;
    index.workflows.find((w) => w.id === 'image-filter')!.version = 2;
    repo.push({ 'workflows/index.json': index, 'workflows/image-filter/NOTE.txt': 'from the repository\n', 'resources/catalogs/models.json': newerModels(repo, 3) }, 'newer items');
    await ok(t.api('/api/admin/system/remote-version'));
    // A workflow only the user has stays.
    fs.mkdirSync(path.join(t.dir, 'workflows', 'mine'));
    fs.writeFileSync(path.join(t.dir, 'workflows', 'mine', 'manifest.yaml'), 'id: mine\n');

    expect(await ok(post(t, '/api/admin/workflows/sync'))).toMatchObject({ updated: ['image-filter'] });
    expect(read(path.join(t.dir, 'workflows', 'image-filter', 'NOTE.txt'))).toBe('from the repository\n');
    expect(fs.existsSync(path.join(t.dir, 'workflows', 'mine', 'manifest.yaml'))).toBe(true);
    const local = readJson<typeof index>(path.join(t.dir, 'workflows', 'index.json'));
    expect(local.version).toBe(2);
    expect(local.workflows.find((w) => w.id === 'image-filter')?.version).toBe(2);
    expect(await ok(post(t, '/api/admin/workflows/sync'))).toMatchObject({ updated: [] });

    expect(await ok(post(t, '/api/admin/models/sync'))).toMatchObject({ updated: ['models'] });
    const models = readJson<CatalogFile>(path.join(t.dir, 'catalogs', 'models.json'));
    expect(models.version).toBe(3);
    expect(models.categories.flatMap((c) => c.models.map((m) => m.file))).toEqual(expect.arrayContaining(['from-repo.safetensors', USER_ENTRY.file]));
    expect(await ok(post(t, '/api/admin/models/sync'))).toMatchObject({ updated: [] });
  });
});

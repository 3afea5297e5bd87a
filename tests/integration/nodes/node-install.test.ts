/**
 * `POST /api/admin/nodes/install` against local git repositories, hand-made wheels and a
 * throwaway venv as the engine's Python; the stand-in engine imports `custom_nodes` with that
 * Python, so a package's node types appear in `object_info` only when it really imports. Covers
 * the dry-run preview (an upgrade listed, a held package refused before anything is written),
 * install at the previewed commit with the engine check, rollback of a package that fails to
 * import (the environment's package list identical to before), install.py failures and deadlines,
 * and the URL rules.
 *
 * Order matters (one Studio and one venv for the file): the rollback test checks that `good-pack`,
 * installed by the test before it, is still loaded after its own rollback, and each test's package
 * list comparison starts from what the earlier installs left.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_GIT_HOST, installEnv, makeEngineVenv, makeRepo, makeWheel, nodePackInit, pipFreeze } from '../../helpers/fake-node-packages.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let t: TestStudio;
let root: string;
let python: string;
let engineDir: string;

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-nodes-'));
  const wheels = path.join(root, 'wheels');
  const git = path.join(root, 'git');
  fs.mkdirSync(wheels);
  fs.mkdirSync(git);
  makeWheel(wheels, 'numpy', '1.0.0');
  makeWheel(wheels, 'numpy', '2.0.0');
  makeWheel(wheels, 'tinydep', '1.0');
  makeWheel(wheels, 'sharedlib', '1.0');
  makeWheel(wheels, 'sharedlib', '2.0');
  makeWheel(wheels, 'extralib', '1.0');
  python = makeEngineVenv(path.join(root, 'venv'), wheels);
  // Installed before any node package: a preview must call 1.0 → 2.0 an upgrade.
  makeWheel(wheels, 'placeholder', '0.1');
  fs.writeFileSync(path.join(root, 'req.txt'), 'sharedlib==1.0\n');
  const { execFileSync } = await import('node:child_process');
  execFileSync(python, ['-m', 'pip', 'install', '-q', '--no-index', '--find-links', wheels, '-r', path.join(root, 'req.txt')]);
  makeRepo(git, 'good-pack', { 'requirements.txt': 'tinydep==1.0\nsharedlib>=2\n', '__init__.py': nodePackInit(['GoodBlur', 'GoodSharpen'], 'import tinydep') });
  makeRepo(git, 'broken-import', { 'requirements.txt': 'extralib==1.0\n', '__init__.py': nodePackInit(['NeverSeen'], 'import extralib\nimport missing_module_xyz') });
  makeRepo(git, 'broken-install', { 'install.py': 'import sys\nprint("setting up")\nsys.stderr.write("boom: install script failed\\n")\nsys.exit(3)\n' });
  makeRepo(git, 'numpy-bumper', { 'requirements.txt': 'numpy>=2\n', '__init__.py': nodePackInit(['Bumper']) });
  makeRepo(git, 'slow-pack', { 'install.py': 'import time\ntime.sleep(60)\n' });
  engineDir = path.join(root, 'engine');
  fs.mkdirSync(engineDir);
  t = await startTestStudio({
    startEngine: true,
    env: { ...installEnv(git, wheels), ENGINE_DIR: engineDir, ENGINE_PYTHON: python, ENGINE_MODE: 'standin', NODES_SCRIPT_TIMEOUT_S: '2', PATH: process.env.PATH ?? '/usr/bin', HOME: root },
  });
  await t.studio.engineReady(30_000);
}, 180_000);
afterAll(async () => {
  await t?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

const install = (body: unknown) => t.api('/api/admin/nodes/install', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
const customNodes = () => path.join(engineDir, 'custom_nodes');
const objectInfo = async () => (await (await fetch(`${t.studio.engine.state.url}/object_info`)).json()) as Record<string, { python_module?: string }>;

describe('node package preview', () => {
  it('names the commit and every Python package pip would add or upgrade, and writes nothing', async () => {
    const before = pipFreeze(python);
    const res = await install({ url: `${FAKE_GIT_HOST}good-pack.git`, dry_run: true });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; commit: string; python: { added: unknown[]; upgraded: unknown[]; downgraded: unknown[] }; held: Record<string, string> };
    expect(body.status).toBe('preview');
    expect(body.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(body.python.added).toEqual([{ name: 'tinydep', version: '1.0' }]);
    expect(body.python.upgraded).toEqual([{ name: 'sharedlib', from: '1.0', to: '2.0' }]);
    expect(body.python.downgraded).toEqual([]);
    expect(body.held).toEqual({ numpy: '1.0.0' });
    expect(pipFreeze(python)).toBe(before);
    expect(fs.existsSync(path.join(customNodes(), 'good-pack'))).toBe(false);
  }, 120_000);

  it('refuses a package that would upgrade a held package, at preview and at install, before anything is written', async () => {
    const before = pipFreeze(python);
    for (const dry_run of [true, false]) {
      const res = await install({ url: `${FAKE_GIT_HOST}numpy-bumper.git`, dry_run });
      expect(res.status).toBe(409);
      const body = (await res.json()) as { detail: string; held_changes: unknown };
      expect(body.detail).toMatch(/numpy-bumper would change a package the engine holds \(numpy 1\.0\.0 → 2\.0\.0\), so nothing was installed/);
      expect(body.held_changes).toEqual([{ name: 'numpy', from: '1.0.0', to: '2.0.0' }]);
    }
    expect(pipFreeze(python)).toBe(before);
    expect(fs.existsSync(path.join(customNodes(), 'numpy-bumper'))).toBe(false);
    const snapshots = (await (await t.api('/api/admin/nodes/snapshots')).json()) as { snapshots: Array<{ reason: string }> };
    expect(snapshots.snapshots.some((s) => /numpy-bumper/.test(s.reason))).toBe(false);
  }, 120_000);
});

describe('node package install', () => {
  it('installs the previewed commit, restarts the engine and finds its node types', async () => {
    const preview = (await (await install({ url: `${FAKE_GIT_HOST}good-pack.git`, dry_run: true })).json()) as { commit: string };
    const res = await install({ url: `${FAKE_GIT_HOST}good-pack.git`, commit: preview.commit });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 'installed', name: 'good-pack', commit: preview.commit, verified: true, restart_required: false, node_types: ['GoodBlur', 'GoodSharpen'] });
    expect(body.snapshot_id).toMatch(/^\d{8}T\d{6}-/);
    expect((await objectInfo()).GoodBlur?.python_module).toBe('custom_nodes.good-pack');
    expect(pipFreeze(python)).toMatch(/sharedlib==2\.0/);
    const again = await install({ repo_url: `${FAKE_GIT_HOST}good-pack` });
    expect(await again.json()).toMatchObject({ status: 'already_installed', name: 'good-pack' });
    const activity = JSON.stringify(await (await t.api('/api/admin/activity-log')).json());
    expect(activity).toMatch(/Installing node package good-pack from/);
    expect(activity).toMatch(/Installed node package good-pack/);
  }, 120_000);

  it('rolls back a package whose node types never appear: folder gone, Python packages as before, the reason in plain words', async () => {
    const before = pipFreeze(python);
    const res = await install({ url: `${FAKE_GIT_HOST}broken-import.git` });
    expect(res.status).toBe(500);
    const body = (await res.json()) as { detail: string; rolled_back: boolean; snapshot_id: string };
    expect(body.detail).toMatch(/^broken-import was not installed: the engine could not import it: No module named 'missing_module_xyz'\. Studio put the engine back as it was/);
    expect(body.rolled_back).toBe(true);
    expect(fs.existsSync(path.join(customNodes(), 'broken-import'))).toBe(false);
    // extralib was installed for it, then removed again: the list is byte for byte the one before.
    expect(pipFreeze(python)).toBe(before);
    expect((await objectInfo()).GoodBlur).toBeDefined();
    expect((await objectInfo()).NeverSeen).toBeUndefined();
  }, 120_000);

  it('rolls back when install.py fails and answers 500 with the script stderr', async () => {
    const res = await install({ url: `${FAKE_GIT_HOST}broken-install.git` });
    expect(res.status).toBe(500);
    const { detail } = (await res.json()) as { detail: string };
    expect(detail).toMatch(/install\.py failed[\s\S]*boom: install script failed/);
    expect(detail.length).toBeLessThanOrEqual(500);
    expect(fs.existsSync(path.join(customNodes(), 'broken-install'))).toBe(false);
  }, 60_000);

  it('kills an install past its deadline and removes the folder', async () => {
    const res = await install({ url: `${FAKE_GIT_HOST}slow-pack.git` });
    expect(res.status).toBe(500);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/install\.py timed out after 2 s/);
    expect(fs.existsSync(path.join(customNodes(), 'slow-pack'))).toBe(false);
  }, 60_000);

  it('fails a clone of an unknown repository with 500 in words, git\'s own text beside it, said once in the log', async () => {
    const res = await install({ url: `${FAKE_GIT_HOST}no-such-pack.git` });
    expect(res.status).toBe(500);
    const body = (await res.json()) as { detail: string; git_output: string };
    expect(body.detail).toBe('git clone: the repository was not found (check the URL; a private repository needs access)');
    expect(body.git_output).toMatch(/fatal: .*no-such-pack/);
    const log = ((await (await t.api('/api/admin/activity-log')).json()) as Array<{ message: string }>).map((l) => l.message);
    const after = log.slice(log.findLastIndex((m) => m.startsWith('Previewing node package no-such-pack')));
    expect(after.filter((m) => /fatal|not found/.test(m))).toEqual([`no-such-pack: ${body.detail}`]);
  }, 60_000);

  it('accepts only https:// URLs that end in a package name', async () => {
    for (const body of [{}, { url: 'http://git.studio.test/x.git' }, { url: 'git@host:x.git' }, { url: 'https://host/' }, { url: 42 }, { url: `${FAKE_GIT_HOST}x.git`, commit: 'abc' }]) {
      const res = await install(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(typeof ((await res.json()) as { detail: string }).detail).toBe('string');
    }
  });
});

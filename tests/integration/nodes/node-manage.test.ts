/**
 * A node package's life after install, against local git repositories, hand-made wheels and the
 * stand-in importing `custom_nodes` with a throwaway venv: the list's fields (commit, update
 * available, import failure, disabled), update through the same preview/check path, disable and
 * enable seen in `object_info`, restore of an older snapshot (folders and Python packages exactly
 * as they were, and back again: a removed package is cloned again at its commit), and uninstall
 * listing the Python packages the package alone brought.
 *
 * Order matters (one Studio and one venv for the file): the list tests read the packages
 * beforeAll installed; update, disable/enable, restore and uninstall run in file order on them,
 * each starting from what the one before left.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodePackageRow, NodeSnapshotSummary } from '../../../server/contracts/nodes.contract.js';
import { addCommit, FAKE_GIT_HOST, installEnv, makeEngineVenv, makeRepo, makeWheel, nodePackInit, pipFreeze } from '../../helpers/fake-node-packages.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let t: TestStudio;
let root: string;
let git: string;
let python: string;
let engineDir: string;
let freezeBeforeAlpha: string;

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-nodes-manage-'));
  const wheels = path.join(root, 'wheels');
  git = path.join(root, 'git');
  fs.mkdirSync(wheels);
  fs.mkdirSync(git);
  makeWheel(wheels, 'numpy', '1.0.0');
  makeWheel(wheels, 'tinydep', '1.0');
  makeWheel(wheels, 'tinydep', '2.0');
  makeWheel(wheels, 'libx', '1.0');
  python = makeEngineVenv(path.join(root, 'venv'), wheels);
  makeRepo(git, 'alpha-pack', { 'requirements.txt': 'tinydep==1.0\n', '__init__.py': nodePackInit(['AlphaOne'], 'import tinydep') });
  makeRepo(git, 'beta-pack', { 'requirements.txt': 'libx==1.0\n', '__init__.py': nodePackInit(['BetaOne'], 'import libx') });
  engineDir = path.join(root, 'engine');
  fs.mkdirSync(engineDir);
  t = await startTestStudio({
    startEngine: true,
    env: { ...installEnv(git, wheels), ENGINE_DIR: engineDir, ENGINE_PYTHON: python, ENGINE_MODE: 'standin', PATH: process.env.PATH ?? '/usr/bin', HOME: root },
  });
  await t.studio.engineReady(30_000);
  freezeBeforeAlpha = pipFreeze(python);
  const res = await post('/api/admin/nodes/install', { url: `${FAKE_GIT_HOST}alpha-pack.git` });
  expect(res.status).toBe(200);
}, 180_000);
afterAll(async () => {
  await t?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

const post = (url: string, body: unknown = {}) => t.api(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
const objectInfo = async () => (await (await fetch(`${t.studio.engine.state.url}/object_info`)).json()) as Record<string, { python_module?: string }>;
const rows = async (query = '') => ((await (await t.api(`/api/admin/nodes${query}`)).json()) as { packages: NodePackageRow[] }).packages;
const row = async (name: string, query = '') => (await rows(query)).find((p) => p.name === name);
const snapshots = async () => ((await (await t.api('/api/admin/nodes/snapshots')).json()) as { snapshots: NodeSnapshotSummary[] }).snapshots;

describe('node package list', () => {
  it('shows the commit, no update while the remote has none, and no import failure', async () => {
    const alpha = await row('alpha-pack', '?refresh_updates=1');
    expect(alpha).toMatchObject({ nodes: ['AlphaOne'], node_count: 1, url: `${FAKE_GIT_HOST}alpha-pack.git`, update_available: false, import_failed: false, disabled: false });
    expect(alpha?.commit).toMatch(/^[0-9a-f]{40}$/);
  }, 60_000);

  it('shows a package the engine failed to import, with its words', async () => {
    const dir = path.join(engineDir, 'custom_nodes', 'hand-made');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, '__init__.py'), 'raise RuntimeError("hand-made is broken")\n');
    expect((await post('/api/admin/engine/restart')).status).toBe(200);
    expect(await row('hand-made')).toMatchObject({ node_count: 0, import_failed: true, import_error: 'hand-made is broken' });
    fs.rmSync(dir, { recursive: true });
  }, 60_000);
});

describe('node package changes', () => {
  it('updates to the newest commit through the preview and the engine check', async () => {
    const old = (await row('alpha-pack'))!.commit!;
    const newer = addCommit(git, 'alpha-pack', { 'requirements.txt': 'tinydep==2.0\n', '__init__.py': nodePackInit(['AlphaOne', 'AlphaTwo'], 'import tinydep') });
    expect((await row('alpha-pack', '?refresh_updates=1'))?.update_available).toBe(true);
    const preview = await (await post('/api/admin/nodes/alpha-pack/update', { dry_run: true })).json();
    expect(preview).toMatchObject({ status: 'preview', commit: newer, current_commit: old, python: { added: [], upgraded: [{ name: 'tinydep', from: '1.0', to: '2.0' }], downgraded: [] } });
    const res = await post('/api/admin/nodes/alpha-pack/update', { commit: newer });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'updated', commit: newer, verified: true, node_types: ['AlphaOne', 'AlphaTwo'] });
    expect(await row('alpha-pack')).toMatchObject({ commit: newer, update_available: false });
    expect(pipFreeze(python)).toMatch(/tinydep==2\.0/);
    expect((await post('/api/admin/nodes/alpha-pack/update', { commit: newer })).status).toBe(409);
  }, 180_000);

  it('disables and enables a package, as the engine sees it', async () => {
    const off = await post('/api/admin/nodes/alpha-pack/disable');
    expect(off.status).toBe(200);
    expect(await off.json()).toMatchObject({ status: 'disabled', verified: true, node_types: [] });
    expect(fs.existsSync(path.join(engineDir, 'custom_nodes', 'alpha-pack.disabled'))).toBe(true);
    expect((await objectInfo()).AlphaOne).toBeUndefined();
    expect(await row('alpha-pack')).toMatchObject({ disabled: true, node_count: 0, import_failed: false });
    expect((await post('/api/admin/nodes/alpha-pack/disable')).status).toBe(409);
    const on = await post('/api/admin/nodes/alpha-pack/enable');
    expect(await on.json()).toMatchObject({ status: 'enabled', verified: true, node_types: ['AlphaOne', 'AlphaTwo'] });
    expect((await objectInfo()).AlphaOne?.python_module).toBe('custom_nodes.alpha-pack');
  }, 120_000);

  it('restores an older snapshot exactly, and the one taken before that restore brings it all back', async () => {
    const list = await snapshots();
    const beforeInstall = list.find((s) => s.reason === 'before installing alpha-pack')!;
    expect(beforeInstall.node_packages).toEqual([]);
    const updatedCommit = (await row('alpha-pack'))!.commit;
    const freezeNow = pipFreeze(python);
    const res = await post(`/api/admin/nodes/snapshots/${beforeInstall.id}/restore`);
    expect(res.status).toBe(200);
    const { snapshot_id: undo } = (await res.json()) as { snapshot_id: string };
    expect(fs.existsSync(path.join(engineDir, 'custom_nodes', 'alpha-pack'))).toBe(false);
    expect(pipFreeze(python)).toBe(freezeBeforeAlpha);
    expect((await objectInfo()).AlphaOne).toBeUndefined();
    // Back again: alpha-pack is cloned anew at the commit it had, tinydep 2.0 reinstalled.
    expect((await post(`/api/admin/nodes/snapshots/${undo}/restore`)).status).toBe(200);
    expect((await row('alpha-pack'))?.commit).toBe(updatedCommit);
    expect(pipFreeze(python)).toBe(freezeNow);
    expect((await objectInfo()).AlphaTwo).toBeDefined();
    expect((await post('/api/admin/nodes/snapshots/20990101T000000-zzzz/restore')).status).toBe(404);
  }, 180_000);

  it('uninstalls a package and lists, without removing, the Python packages it alone brought', async () => {
    expect((await post('/api/admin/nodes/install', { url: `${FAKE_GIT_HOST}beta-pack.git` })).status).toBe(200);
    const res = await t.api('/api/admin/nodes/beta-pack', { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'uninstalled', name: 'beta-pack', python_packages_left: ['libx'], verified: true });
    expect(fs.existsSync(path.join(engineDir, 'custom_nodes', 'beta-pack'))).toBe(false);
    expect(pipFreeze(python)).toMatch(/libx==1\.0/);
    expect((await objectInfo()).BetaOne).toBeUndefined();
    expect((await t.api('/api/admin/nodes/beta-pack', { method: 'DELETE' })).status).toBe(404);
  }, 120_000);
});

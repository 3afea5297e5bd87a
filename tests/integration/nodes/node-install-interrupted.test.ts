/**
 * Node package installs that do not run alone: Studio killed in the middle of one (the folder it
 * left is installed again, not reported `already_installed`), and two installs sent at once (the
 * second waits for the first; the environment ends with both, each recorded once). Local git
 * repositories, hand-made wheels and a throwaway venv as the engine's Python; an external engine
 * with ENGINE_DIR, so no engine restart is involved.
 *
 * Shared across tests: the venv and the repositories (beforeAll). Each test starts its own
 * Studio on its own data and engine folders; the venv's packages only grow, and each test checks
 * only the packages it installs itself.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_GIT_HOST, installEnv, makeEngineVenv, makeRepo, makeWheel, nodePackInit, pipFreeze } from '../../helpers/fake-node-packages.js';
import { startStudioProcess } from '../../helpers/studio-process.js';
import { until } from '../../helpers/studio-ws.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let root: string;
let python: string;
let baseEnv: Record<string, string>;
/** While this file exists, crash-pack's install.py waits (after writing its pid next to it). */
let hold: string;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-nodes-interrupted-'));
  const wheels = path.join(root, 'wheels');
  const git = path.join(root, 'git');
  fs.mkdirSync(wheels);
  fs.mkdirSync(git);
  for (const name of ['tinydep', 'extralib', 'libx']) makeWheel(wheels, name, '1.0');
  makeWheel(wheels, 'numpy', '1.0.0');
  python = makeEngineVenv(path.join(root, 'venv'), wheels);
  hold = path.join(root, 'hold');
  const waitWhileHeld = `import os, time\nif os.path.exists(${JSON.stringify(hold)}):\n    open(${JSON.stringify(`${hold}.pid`)}, "w").write(str(os.getpid()))\n    while os.path.exists(${JSON.stringify(hold)}):\n        time.sleep(0.05)\n`;
  makeRepo(git, 'crash-pack', { 'requirements.txt': 'tinydep==1.0\n', 'install.py': waitWhileHeld, '__init__.py': nodePackInit(['CrashNode']) });
  makeRepo(git, 'twice-pack', { '__init__.py': nodePackInit(['TwiceNode']) });
  makeRepo(git, 'pair-a', { 'requirements.txt': 'extralib==1.0\n', '__init__.py': nodePackInit(['PairA']) });
  makeRepo(git, 'pair-b', { 'requirements.txt': 'libx==1.0\n', '__init__.py': nodePackInit(['PairB']) });
  baseEnv = { ...installEnv(git, wheels), ENGINE_MODE: 'external', ENGINE_PORT: '9', ENGINE_PYTHON: python, PATH: process.env.PATH ?? '/usr/bin', HOME: root };
}, 180_000);
afterAll(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

/** A data folder and an engine folder of its own. */
function freshDirs(): { dir: string; engineDir: string } {
  const dir = fs.mkdtempSync(path.join(root, 'studio-'));
  const engineDir = path.join(dir, 'engine-dir');
  fs.mkdirSync(engineDir);
  return { dir, engineDir };
}

async function studioOn(dir: string, engineDir: string): Promise<TestStudio> {
  const t = await startTestStudio({ dir, env: { ...baseEnv, ENGINE_DIR: engineDir } });
  cleanups.push(() => t.stop());
  return t;
}

const installBody = (name: string) => ({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ url: `${FAKE_GIT_HOST}${name}.git` }) });
const answer = async (res: Response) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> });
const records = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, 'engine', 'node-packages.json'), 'utf8')) as Record<string, { commit: string }>;

describe('an install cut short by Studio stopping', () => {
  it('is found at the next install and installed again, not reported already installed', async () => {
    const { dir, engineDir } = freshDirs();
    const folder = path.join(engineDir, 'custom_nodes', 'crash-pack');
    fs.writeFileSync(hold, '');
    cleanups.push(() => fs.rmSync(hold, { force: true }));
    const first = await startStudioProcess({ ...baseEnv, STUDIO_DIR: dir, ENGINE_DIR: engineDir });
    cleanups.push(() => first.kill());
    const cut = first.api('/api/admin/nodes/install', installBody('crash-pack')).catch(() => null);
    // The fault: the clone is in custom_nodes, its requirements installed, install.py running — then SIGKILL.
    await until(() => fs.existsSync(`${hold}.pid`), 'install.py running', 90_000);
    expect(fs.existsSync(path.join(folder, '__init__.py'))).toBe(true);
    await first.kill();
    await cut;
    fs.rmSync(hold);

    const t = await studioOn(dir, engineDir);
    const again = await answer(await t.api('/api/admin/nodes/install', installBody('crash-pack')));
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toMatchObject({ status: 'installed', name: 'crash-pack' });
    expect(records(dir)['crash-pack']?.commit).toBe(again.body.commit);
    expect(fs.existsSync(path.join(folder, '__init__.py'))).toBe(true);
    const activity = JSON.stringify(await (await t.api('/api/admin/activity-log')).json());
    expect(activity).toContain('Removing the crash-pack folder an earlier install left unfinished');
    // Finished now: a third install is the ordinary "already installed".
    expect((await answer(await t.api('/api/admin/nodes/install', installBody('crash-pack')))).body).toMatchObject({ status: 'already_installed' });
  }, 180_000);

  it('leaves a package put there by other means alone', async () => {
    const { dir, engineDir } = freshDirs();
    const t = await studioOn(dir, engineDir);
    const byHand = path.join(engineDir, 'custom_nodes', 'twice-pack');
    execFileSync('git', ['clone', '-q', `file://${path.join(root, 'git', 'twice-pack')}`, byHand]);
    fs.writeFileSync(path.join(byHand, 'local-change.txt'), 'mine');
    const res = await answer(await t.api('/api/admin/nodes/install', installBody('twice-pack')));
    expect(res.body).toMatchObject({ status: 'already_installed', name: 'twice-pack' });
    // Even beside a stale unfinished-install file: the folder is a checkout of another commit.
    const unfinished = path.join(dir, 'engine', 'node-installs-unfinished');
    fs.mkdirSync(unfinished, { recursive: true });
    fs.writeFileSync(path.join(unfinished, 'twice-pack.json'), JSON.stringify({ url: `${FAKE_GIT_HOST}twice-pack.git`, commit: 'f'.repeat(40), snapshot_id: 'x', started_at: '2026-01-01T00:00:00Z' }));
    const stale = await answer(await t.api('/api/admin/nodes/install', installBody('twice-pack')));
    expect(stale.body).toMatchObject({ status: 'already_installed', name: 'twice-pack' });
    expect(fs.readFileSync(path.join(byHand, 'local-change.txt'), 'utf8')).toBe('mine');
  }, 60_000);
});

describe('two installs at once', () => {
  it('of one package: one installs it, the other finds it installed; one folder, one snapshot', async () => {
    const { dir, engineDir } = freshDirs();
    const t = await studioOn(dir, engineDir);
    const answers = await Promise.all([1, 2].map(async () => answer(await t.api('/api/admin/nodes/install', installBody('twice-pack')))));
    expect(answers.map((a) => a.body.status).sort()).toEqual(['already_installed', 'installed']);
    expect(fs.readdirSync(path.join(engineDir, 'custom_nodes'))).toEqual(['twice-pack']);
    const { snapshots } = (await (await t.api('/api/admin/nodes/snapshots')).json()) as { snapshots: Array<{ reason: string }> };
    expect(snapshots.map((s) => s.reason)).toEqual(['before installing twice-pack']);
  }, 120_000);

  it('of two packages: both installed, each with its Python packages and its record', async () => {
    const { dir, engineDir } = freshDirs();
    const t = await studioOn(dir, engineDir);
    const [a, b] = await Promise.all(['pair-a', 'pair-b'].map(async (name) => answer(await t.api('/api/admin/nodes/install', installBody(name)))));
    expect(a!.body).toMatchObject({ status: 'installed', name: 'pair-a' });
    expect(b!.body).toMatchObject({ status: 'installed', name: 'pair-b' });
    expect(fs.readdirSync(path.join(engineDir, 'custom_nodes')).sort()).toEqual(['pair-a', 'pair-b']);
    expect(Object.keys(records(dir)).sort()).toEqual(['pair-a', 'pair-b']);
    const freeze = pipFreeze(python);
    expect(freeze).toMatch(/extralib==1\.0/);
    expect(freeze).toMatch(/libx==1\.0/);
    // The second waited: the snapshot it took before changing anything already holds the first, whole.
    const { snapshots } = (await (await t.api('/api/admin/nodes/snapshots')).json()) as { snapshots: Array<{ reason: string; node_packages: Array<{ name: string }> }> };
    const packagesIn = (reason: string) => snapshots.find((s) => s.reason === reason)!.node_packages.map((n) => n.name);
    const held = [packagesIn('before installing pair-a'), packagesIn('before installing pair-b')];
    // Either pair-a went first (its snapshot empty, pair-b's holding it) or pair-b did.
    expect([[[], ['pair-a']], [['pair-b'], []]]).toContainEqual(held);
  }, 120_000);
});

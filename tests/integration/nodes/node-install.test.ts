/**
 * `POST /api/admin/nodes/install` against local git repositories and a throwaway Python: a good
 * package with requirements, a failing install.py, a requirement that would replace a pinned
 * package, a hanging install past a shortened deadline, plus the URL rules.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_GIT_HOST, installEnv, makeEngineVenv, makeRepo, makeWheel } from '../../helpers/fake-node-packages.js';
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
  python = makeEngineVenv(path.join(root, 'venv'), wheels);
  makeRepo(git, 'good-pack', { 'requirements.txt': 'tinydep==1.0\n', '__init__.py': 'NODE_CLASS_MAPPINGS = {}\n' });
  makeRepo(git, 'broken-install', { 'install.py': 'import sys\nprint("setting up")\nsys.stderr.write("boom: install script failed\\n")\nsys.exit(3)\n' });
  makeRepo(git, 'numpy-bumper', { 'requirements.txt': 'numpy>=2\n' });
  makeRepo(git, 'slow-pack', { 'install.py': 'import time\ntime.sleep(60)\n' });
  engineDir = path.join(root, 'engine');
  fs.mkdirSync(engineDir);
  t = await startTestStudio({
    env: { ...installEnv(git, wheels), ENGINE_DIR: engineDir, ENGINE_PYTHON: python, ENGINE_MODE: 'standin', NODES_SCRIPT_TIMEOUT_S: '2', PATH: process.env.PATH ?? '/usr/bin', HOME: root },
  });
}, 120_000);
afterAll(async () => {
  await t.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

const install = (body: unknown) => t.api('/api/admin/nodes/install', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
const customNodes = () => path.join(engineDir, 'custom_nodes');
const pyVersion = (pkg: string) => execFileSync(python, ['-c', `import ${pkg}; print(${pkg}.VERSION)`]).toString().trim();

describe('node package install', () => {
  it('clones, installs requirements with the engine Python, and asks for a restart', async () => {
    const res = await install({ url: `${FAKE_GIT_HOST}good-pack.git` });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'installed', name: 'good-pack', restart_required: true });
    expect(fs.existsSync(path.join(customNodes(), 'good-pack', '__init__.py'))).toBe(true);
    expect(pyVersion('tinydep')).toBe('1.0');
    const again = await install({ repo_url: `${FAKE_GIT_HOST}good-pack` });
    expect(await again.json()).toMatchObject({ status: 'already_installed', name: 'good-pack' });
    // Every line went to the activity log.
    const activity = JSON.stringify(await (await t.api('/api/admin/activity-log')).json());
    expect(activity).toMatch(/Installing node package good-pack/);
    expect(activity).toMatch(/keeping numpy==1\.0\.0/);
  }, 60_000);

  it('removes the folder and answers 500 with the script stderr when install.py fails', async () => {
    const res = await install({ url: `${FAKE_GIT_HOST}broken-install.git` });
    expect(res.status).toBe(500);
    const { detail } = (await res.json()) as { detail: string };
    expect(detail).toMatch(/install\.py failed[\s\S]*boom: install script failed/);
    expect(detail.length).toBeLessThanOrEqual(500);
    expect(fs.existsSync(path.join(customNodes(), 'broken-install'))).toBe(false);
  }, 60_000);

  it('refuses a requirement that would replace a pinned package, in plain words, and leaves it as it was', async () => {
    const res = await install({ url: `${FAKE_GIT_HOST}numpy-bumper.git` });
    expect(res.status).toBe(500);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/conflict with the engine's numpy \(kept at numpy==1\.0\.0\)/);
    expect(pyVersion('numpy')).toBe('1.0.0');
    expect(fs.existsSync(path.join(customNodes(), 'numpy-bumper'))).toBe(false);
  }, 60_000);

  it('kills an install past its deadline and removes the folder', async () => {
    const res = await install({ url: `${FAKE_GIT_HOST}slow-pack.git` });
    expect(res.status).toBe(500);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/install\.py timed out after 2 s/);
    expect(fs.existsSync(path.join(customNodes(), 'slow-pack'))).toBe(false);
  }, 60_000);

  it('fails a clone of an unknown repository with 500 and git stderr', async () => {
    const res = await install({ url: `${FAKE_GIT_HOST}no-such-pack.git` });
    expect(res.status).toBe(500);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/git clone failed/);
  }, 60_000);

  it('accepts only https:// URLs that end in a package name', async () => {
    for (const body of [{}, { url: 'http://git.studio.test/x.git' }, { url: 'git@host:x.git' }, { url: 'https://host/' }, { url: 42 }]) {
      const res = await install(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(typeof ((await res.json()) as { detail: string }).detail).toBe('string');
    }
  });
});

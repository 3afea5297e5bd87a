/**
 * The free-space guard on node installs, on a real small filesystem (a 16 MB tmpfs holding the
 * engine folder): a package whose requirements pip would install needs its clone plus 50 MB per
 * Python package, so it is refused with the numbers after the preview and before anything is
 * written; no snapshot is taken, the engine's Python is untouched.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_GIT_HOST, installEnv, makeEngineVenv, makeRepo, makeWheel, nodePackInit, pipFreeze } from '../../helpers/fake-node-packages.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { mountCommand, mountTinyDisk, type TinyDisk } from '../../helpers/tiny-disk.js';

const how = mountCommand();
if ('reason' in how && process.env.CI) throw new Error(`free-space tests cannot run on CI: ${how.reason}`);
if ('reason' in how) console.warn(`skipping the node free-space test: ${how.reason}`);

describe.skipIf('reason' in how)('the free-space guard on node installs', () => {
  let disk: TinyDisk;
  let t: TestStudio;
  let root: string;
  let python: string;

  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-nodes-space-'));
    const wheels = path.join(root, 'wheels');
    const git = path.join(root, 'git');
    fs.mkdirSync(wheels);
    fs.mkdirSync(git);
    makeWheel(wheels, 'numpy', '1.0.0');
    makeWheel(wheels, 'tinydep', '1.0');
    python = makeEngineVenv(path.join(root, 'venv'), wheels);
    makeRepo(git, 'roomy-pack', { 'requirements.txt': 'tinydep==1.0\n', '__init__.py': nodePackInit(['Roomy']) });
    disk = mountTinyDisk(16);
    t = await startTestStudio({ env: { ...installEnv(git, wheels), ENGINE_DIR: disk.dir, ENGINE_PYTHON: python, ENGINE_MODE: 'standin', PATH: process.env.PATH ?? '/usr/bin', HOME: root } });
  }, 120_000);

  afterAll(async () => {
    await t?.stop();
    disk?.unmount();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('refuses an install that cannot fit, with the numbers, before anything is written', async () => {
    const before = pipFreeze(python);
    const res = await t.api('/api/admin/nodes/install', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ url: `${FAKE_GIT_HOST}roomy-pack.git` }) });
    expect(res.status).toBe(507);
    const { detail } = (await res.json()) as { detail: string };
    expect(detail).toMatch(/^Not enough free disk space for installing roomy-pack: needs 50\.\d MB, 1\d\.\d MB free$/);
    expect(fs.existsSync(path.join(disk.dir, 'custom_nodes', 'roomy-pack'))).toBe(false);
    expect(pipFreeze(python)).toBe(before);
    expect(((await (await t.api('/api/admin/nodes/snapshots')).json()) as { snapshots: unknown[] }).snapshots).toEqual([]);
  }, 60_000);
});

/**
 * Installing an engine from the setup page, offline: the engine's repository is a local git
 * repository behind an `https://` URL (git's insteadOf), torch and the requirements come from a
 * local index answering like PyPI's simple API, the environment is a real venv of this machine's
 * Python. The new engine is proven on a port of its own before it becomes the engine; a restart
 * runs it; an update carries its node packages over; rollback goes back.
 *
 * Order matters (one Studio for the file; found with --sequence.shuffle): first start is checked
 * before anything is installed, then install, restart and update build on each other.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE_REPO_URL, makeEngineRepo, makeWheels, startFakeIndex, type FakeIndex } from '../../helpers/fake-engine-sources.js';
import { engineFolders, eventsOf, offlineInstallEnv, report, runJob, storedChoice } from '../../helpers/setup-install.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

const LONG = 240_000;
let root: string;
let index: FakeIndex;
let env: Record<string, string>;
let dataDir: string;
let t: TestStudio;
const relaunches: number[] = [];

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'setup-install-'));
  const bare = makeEngineRepo(root, [
    { tag: 'v0.1.0' },
    { tag: 'v0.2.0' },
    { tag: 'v0.9.0', smokeFails: true },
  ]);
  index = await startFakeIndex(makeWheels(root));
  dataDir = path.join(root, 'studio');
  env = offlineInstallEnv(root, bare, index);
  t = await startTestStudio({ dir: dataDir, env, relaunch: () => void relaunches.push(Date.now()) });
}, LONG);

afterAll(async () => {
  await t?.stop();
  await index?.close();
  fs.rmSync(root, { recursive: true, force: true });
}, LONG);

describe('first start', () => {
  it('reports the CPU, the CPU torch build, no install yet, and the free space', async () => {
    const r = await report(t);
    expect(r.first_start).toBe(true);
    expect(r.engine).toMatchObject({ mode: 'standin', chosen_by: 'default' });
    expect(r.gpu).toMatchObject({ backend: 'cpu', gpus: [] });
    expect(r.torch).toMatchObject({ backend: 'cpu', variant: 'cpu', index_url: `${index.torchUrl}/cpu` });
    expect(r.installs).toEqual([]);
    expect(r.disk.free_bytes).toBeGreaterThan(0);
    expect(r.install).toBeNull();
  });

  it('lists the release tags newest first', async () => {
    const res = await t.api('/api/admin/setup/releases');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ repository: ENGINE_REPO_URL, tags: ['v0.9.0', 'v0.2.0', 'v0.1.0'] });
  });
});

describe('install, prove, switch', () => {
  it('installs v0.1.0 with the CPU torch, proves it on its own port and stores it as the engine', async () => {
    const job = await runJob(t, '/api/admin/setup/engine', { version: 'v0.1.0' });
    expect(job.error).toBeNull();
    expect(job).toMatchObject({ status: 'finished', kind: 'install', version: 'v0.1.0' });
    expect(job.steps.map((s) => [s.name, s.status])).toEqual([
      ['space', 'done'], ['clone', 'done'], ['environment', 'done'], ['torch', 'done'], ['requirements', 'done'], ['check', 'done'], ['prove', 'done'], ['switch', 'done'],
    ]);
    expect(Object.keys(job.timings)).toEqual(expect.arrayContaining(['clone', 'environment', 'torch', 'requirements', 'prove']));
    const target = path.join(dataDir, 'engine', 'v0.1.0');
    expect(fs.existsSync(path.join(target, 'ComfyUI', 'main.py'))).toBe(true);
    expect(fs.existsSync(path.join(target, '.studio-incomplete'))).toBe(false);
    // torch came from the torch index's CPU folder, the rest from the general index, torch held as installed.
    expect(index.requests).toEqual(expect.arrayContaining(['GET /torch/cpu/torch/', 'GET /simple/engine-helper/']));
    expect(fs.readFileSync(path.join(target, 'engine-constraints.txt'), 'utf8')).toContain('torch==2.5.1+cpu');
    const choice = storedChoice(dataDir);
    expect(choice?.current).toMatchObject({ dir: path.join(target, 'ComfyUI'), python: path.join(target, 'venv', 'bin', 'python'), version: 'v0.1.0', origin: 'installed', mode: 'managed' });
    const events = (await eventsOf(t, 'engine.')).map((e) => e.type);
    expect(events).toEqual(expect.arrayContaining(['engine.install.started', 'engine.install.step', 'engine.proved', 'engine.switched']));
    // The switch restarts Studio so every part of it follows the new engine.
    for (let i = 0; i < 40 && relaunches.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(relaunches.length).toBe(1);
  }, LONG);

  it('runs the stored engine after the restart, without ENGINE_DIR', async () => {
    await t.stop();
    t = await startTestStudio({ dir: dataDir, env, startEngine: true, relaunch: () => void relaunches.push(Date.now()) });
    let r = await report(t, true);
    while (r.engine.status !== 'running' && r.engine.status !== 'crashed') r = await new Promise((resolve) => setTimeout(resolve, 250)).then(() => report(t));
    expect(r.first_start).toBe(false);
    expect(r.engine).toMatchObject({ mode: 'managed', chosen_by: 'setup', version: 'v0.1.0', dir: path.join(dataDir, 'engine', 'v0.1.0', 'ComfyUI') });
    expect(r.installs).toEqual([expect.objectContaining({ place: 'setup', version: '0.1.0', in_use: true, torch: expect.objectContaining({ torch: '2.5.1+cpu', works: true }) })]);
    const stats = await fetch(`http://127.0.0.1:${storedPort()}/system_stats`);
    expect(((await stats.json()) as { system: { comfyui_version: string; argv: string[] } }).system).toMatchObject({ comfyui_version: '0.1.0', argv: expect.arrayContaining(['--cpu']) });
  }, LONG);

  it('updates to v0.2.0 beside it, carrying the node package over, and rolls back in one step', async () => {
    // A node package the user installed into the engine in use.
    const pack = path.join(dataDir, 'engine', 'v0.1.0', 'ComfyUI', 'custom_nodes', 'my-pack');
    fs.mkdirSync(pack, { recursive: true });
    fs.writeFileSync(path.join(pack, '__init__.py'), 'NODE_CLASS_MAPPINGS = {}\n');
    fs.writeFileSync(path.join(pack, 'requirements.txt'), 'node-helper\n');
    const job = await runJob(t, '/api/admin/setup/update', { version: 'v0.2.0' });
    expect(job.error).toBeNull();
    expect(job.steps.find((s) => s.name === 'nodes')?.status).toBe('done');
    const next = path.join(dataDir, 'engine', 'v0.2.0');
    expect(fs.existsSync(path.join(next, 'ComfyUI', 'custom_nodes', 'my-pack', '__init__.py'))).toBe(true);
    expect(job.log.join('\n')).toContain('carrying node package my-pack over');
    expect(fs.readdirSync(path.join(next, 'venv', 'lib')).some((py) => fs.existsSync(path.join(next, 'venv', 'lib', py, 'site-packages', 'node_helper')))).toBe(true);
    let choice = storedChoice(dataDir)!;
    expect(choice.current).toMatchObject({ version: 'v0.2.0' });
    expect(choice.previous.map((p) => p.version)).toEqual(['v0.1.0']);
    // The old version stays until the user removes it: one click goes back.
    const back = await t.api('/api/admin/setup/rollback', { method: 'POST' });
    expect(back.status).toBe(200);
    expect(await back.json()).toEqual({ status: 'switched', restart: true });
    choice = storedChoice(dataDir)!;
    expect(choice.current).toMatchObject({ version: 'v0.1.0' });
    expect(choice.previous.map((p) => p.version)).toEqual(['v0.2.0']);
    const removed = await t.api('/api/admin/setup/versions/remove', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ dir: path.join(next, 'ComfyUI') }) });
    expect(removed.status).toBe(200);
    expect(engineFolders(dataDir)).toEqual(['v0.1.0']);
    expect(storedChoice(dataDir)!.previous).toEqual([]);
  }, LONG);
});

function storedPort(): number {
  return Number(t.studio.config.engine.port);
}

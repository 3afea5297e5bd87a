/**
 * The setup page's installer for real: ComfyUI 0.29.0 of ../shared/real-engine/ cloned from a
 * repository with release tags (a local copy behind an https URL), an environment made from the
 * real engine's Python (Debian sid's python3 and its CPU torch, which the environment uses as it
 * is), the engine's requirements from a package index (the real packages' sources as wheels),
 * proven with the smoke prompt, switched to, and run by the next Studio; then an update to the
 * second tag carrying a node package over, and a rollback. What stands in for what is said in
 * real-engine-sources.ts. Needs the real engine built by setup.sh (REALENGINE_HOME).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeIndex, type FakeIndex } from '../helpers/fake-engine-sources.js';
import { engineFolders, eventsOf, offlineInstallEnv, report, runJob, storedChoice } from '../helpers/setup-install.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';
import { ensureVenvSupport, FIRST_TAG, REAL_REPO_URL, realEngineHome, realEngineRepo, realEngineWheels, SECOND_TAG, writeBasePython } from './real-engine-sources.js';

const home = realEngineHome();
if (!home) console.warn('[test:engine] setup install: skipped, the real engine of ../shared/real-engine/ is not built here (REALENGINE_HOME)');

const LONG = 600_000;
let root: string;
let index: FakeIndex;
let env: Record<string, string>;
let t: TestStudio;
const relaunches: number[] = [];

beforeAll(async () => {
  if (!home) return;
  ensureVenvSupport(home);
  const bare = realEngineRepo(home);
  index = await startFakeIndex(realEngineWheels(home));
  // Inside REALENGINE_HOME: the chroot sees only that folder, and the engines and the venvs live here.
  root = fs.mkdtempSync(path.join(home, 'studio-test-install-'));
  env = offlineInstallEnv(root, bare, index, { repoUrl: REAL_REPO_URL, python: writeBasePython(path.join(root, 'base-python'), home) });
  t = await startTestStudio({ dir: path.join(root, 'studio'), env, relaunch: () => void relaunches.push(Date.now()) });
}, LONG);

afterAll(async () => {
  await t?.stop();
  await index?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
}, LONG);

/** Stop this Studio and start the next on the same data (what the switch's restart does), and wait for its engine. */
async function restart(): Promise<Awaited<ReturnType<typeof report>>> {
  const dir = t.dir;
  await t.stop();
  t = await startTestStudio({ dir, env, startEngine: true, relaunch: () => void relaunches.push(Date.now()) });
  let r = await report(t, true);
  while (r.engine.status !== 'running' && r.engine.status !== 'crashed') r = await new Promise((resolve) => setTimeout(resolve, 500)).then(() => report(t));
  return r;
}

async function engineVersion(): Promise<string> {
  const stats = await fetch(`http://127.0.0.1:${t.studio.config.engine.port}/system_stats`);
  return ((await stats.json()) as { system: { comfyui_version: string } }).system.comfyui_version;
}

describe.skipIf(!home)('installing the real engine from the setup page', () => {
  it('lists the repository\'s two release tags', async () => {
    const res = await t.api('/api/admin/setup/releases');
    expect(await res.json()).toMatchObject({ repository: REAL_REPO_URL, tags: [SECOND_TAG, FIRST_TAG] });
  });

  it(`installs ${FIRST_TAG} with the base Python's torch, proves it and makes it the engine`, async () => {
    const job = await runJob(t, '/api/admin/setup/engine', { version: FIRST_TAG });
    expect(job.error).toBeNull();
    expect(job.steps.map((s) => [s.name, s.status])).toEqual([
      ['space', 'done'], ['clone', 'done'], ['environment', 'done'], ['torch', 'done'], ['requirements', 'done'], ['check', 'done'], ['prove', 'done'], ['switch', 'done'],
    ]);
    const log = job.log.join('\n');
    expect(log).toMatch(/torch 2\.\S+ of \S+ works on this machine \(cpu\): the environment uses it as it is, nothing is downloaded/);
    expect(log).toContain('smoke prompt done: the engine works');
    // No torch was asked for; the requirements Debian lacks came from the index, built from the engine's real sources.
    expect(index.requests.filter((r) => r.startsWith('GET /torch'))).toEqual([]);
    expect(index.requests).toEqual(expect.arrayContaining(['GET /simple/torchsde/', 'GET /simple/comfy-kitchen/', 'GET /simple/spandrel/']));
    const target = path.join(t.dir, 'engine', FIRST_TAG);
    expect(fs.readFileSync(path.join(target, 'venv', 'pyvenv.cfg'), 'utf8')).toContain('include-system-site-packages = true');
    expect(fs.readFileSync(path.join(target, 'engine-constraints.txt'), 'utf8')).toMatch(/^torch==2\./m);
    expect(storedChoice(t.dir)?.current).toMatchObject({ dir: path.join(target, 'ComfyUI'), python: path.join(target, 'venv', 'bin', 'python'), version: FIRST_TAG, origin: 'installed', mode: 'managed' });
    expect((await eventsOf(t, 'engine.')).map((e) => e.type)).toEqual(expect.arrayContaining(['engine.install.started', 'engine.proved', 'engine.switched']));
    expect(relaunches.length).toBe(1);
    console.log(`[test:engine] setup install: ${Object.entries(job.timings).map(([step, s]) => `${step} ${s} s`).join(', ')}`);
  }, LONG);

  it('runs it as the managed engine of the next Studio', async () => {
    const r = await restart();
    expect(r.engine).toMatchObject({ mode: 'managed', status: 'running', chosen_by: 'setup', version: FIRST_TAG });
    expect(await engineVersion()).toBe('0.29.0');
  }, LONG);

  it(`updates to ${SECOND_TAG} beside it with a node package carried over, then rolls back`, async () => {
    // A node package the user added to the engine in use, with a requirement of its own.
    const pack = path.join(t.dir, 'engine', FIRST_TAG, 'ComfyUI', 'custom_nodes', 'studio_test_pack');
    fs.mkdirSync(pack, { recursive: true });
    fs.writeFileSync(
      path.join(pack, '__init__.py'),
      'import node_helper\n\nclass StudioTestCarried:\n    CATEGORY = "test"\n    RETURN_TYPES = ()\n    FUNCTION = "run"\n    OUTPUT_NODE = True\n\n    @classmethod\n    def INPUT_TYPES(cls):\n        return {"required": {}}\n\n    def run(self):\n        return {}\n\nNODE_CLASS_MAPPINGS = {"StudioTestCarried": StudioTestCarried}\n',
    );
    fs.writeFileSync(path.join(pack, 'requirements.txt'), 'node-helper\n');
    const job = await runJob(t, '/api/admin/setup/update', { version: SECOND_TAG });
    expect(job.error).toBeNull();
    expect(job.steps.find((s) => s.name === 'nodes')?.status).toBe('done');
    expect(job.log.join('\n')).toContain('carrying node package studio_test_pack over');
    expect(storedChoice(t.dir)).toMatchObject({ current: { version: SECOND_TAG }, previous: [expect.objectContaining({ version: FIRST_TAG })] });
    console.log(`[test:engine] setup update: ${Object.entries(job.timings).map(([step, s]) => `${step} ${s} s`).join(', ')}`);

    let r = await restart();
    expect(r.engine).toMatchObject({ status: 'running', version: SECOND_TAG });
    expect(await engineVersion()).toBe('0.29.1');
    // The carried package loads in the new engine, its requirement installed there.
    const info = await fetch(`http://127.0.0.1:${t.studio.config.engine.port}/object_info/StudioTestCarried`);
    expect(Object.keys((await info.json()) as object)).toEqual(['StudioTestCarried']);

    const back = await t.api('/api/admin/setup/rollback', { method: 'POST' });
    expect(back.status).toBe(200);
    expect(storedChoice(t.dir)).toMatchObject({ current: { version: FIRST_TAG }, previous: [expect.objectContaining({ version: SECOND_TAG })] });
    r = await restart();
    expect(r.engine).toMatchObject({ status: 'running', version: FIRST_TAG });
    expect(await engineVersion()).toBe('0.29.0');
    expect(engineFolders(t.dir)).toEqual([FIRST_TAG, SECOND_TAG]);
  }, LONG);
});

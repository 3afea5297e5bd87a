/**
 * Node package installs against a real engine (ComfyUI, managed), when one is given with
 * `ENGINE_DIR` + `ENGINE_PYTHON`: a package the engine loads is found in the real `object_info`;
 * a package whose import fails is rolled back from the engine's own import log (folder gone, the
 * Python package list as before, the good package still loaded); disable and enable are seen by
 * the engine. The engine's code is copied beside it first, so the engine other tests use is never
 * touched (its models, inputs, outputs and user folders are left out of the copy).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeSnapshotSummary } from '../../server/contracts/nodes.contract.js';
import { FAKE_GIT_HOST, installEnv, makeRepo, nodePackInit } from '../helpers/fake-node-packages.js';
import { freePort } from '../helpers/ports.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

const engineDir = process.env.ENGINE_DIR;
const enginePython = process.env.ENGINE_PYTHON;
const available = Boolean(engineDir && enginePython);
if (!available) console.warn('[test:engine] node rollback skipped: set ENGINE_DIR and ENGINE_PYTHON (../shared/real-engine/setup.sh builds one).');

const LEFT_OUT = new Set(['models', 'input', 'output', 'temp', 'user', '.git']);
let t: TestStudio;
let root: string;
let engineCopy: string;

const post = (url: string, body: unknown = {}) => t.api(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
const objectInfo = async () => (await (await fetch(`${t.studio.engine.state.url}/object_info`)).json()) as Record<string, { python_module?: string }>;
const snapshots = async () => ((await (await t.api('/api/admin/nodes/snapshots')).json()) as { snapshots: NodeSnapshotSummary[] }).snapshots;

describe.skipIf(!available)('node packages on a real engine', () => {
  beforeAll(async () => {
    // Beside the engine: an engine in a chroot sees only its own tree.
    root = fs.mkdtempSync(path.join(path.dirname(engineDir!), 'studio-test-nodes-'));
    engineCopy = path.join(root, 'ComfyUI');
    fs.cpSync(engineDir!, engineCopy, { recursive: true, verbatimSymlinks: true, filter: (src) => !(path.dirname(src) === engineDir && LEFT_OUT.has(path.basename(src))) });
    const git = path.join(root, 'git');
    fs.mkdirSync(git);
    makeRepo(git, 'real-good', { '__init__.py': nodePackInit(['RealGoodNode']) });
    makeRepo(git, 'real-broken', { '__init__.py': nodePackInit(['RealNeverSeen'], 'import studio_missing_module_for_test') });
    t = await startTestStudio({
      startEngine: true,
      dir: path.join(root, 'studio'),
      env: { ...installEnv(git, path.join(root, 'no-wheels')), ENGINE_MODE: 'managed', ENGINE_DIR: engineCopy, ENGINE_PYTHON: enginePython!, ENGINE_PORT: String(await freePort()), PATH: process.env.PATH ?? '/usr/bin', HOME: os.homedir() },
    });
    await t.studio.engineReady(150_000);
  }, 200_000);
  afterAll(async () => {
    await t?.stop();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it('installs a package and finds its node types in the real object_info', async () => {
    const res = await post('/api/admin/nodes/install', { url: `${FAKE_GIT_HOST}real-good.git` });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'installed', verified: true, restart_required: false, node_types: ['RealGoodNode'] });
    expect((await objectInfo()).RealGoodNode?.python_module).toBe('custom_nodes.real-good');
  }, 300_000);

  it('rolls back a package the engine cannot import, from its own log, with the Python packages as before', async () => {
    const res = await post('/api/admin/nodes/install', { url: `${FAKE_GIT_HOST}real-broken.git` });
    expect(res.status).toBe(500);
    const body = (await res.json()) as { detail: string; rolled_back: boolean };
    expect(body.detail).toMatch(/^real-broken was not installed: the engine could not import it: No module named 'studio_missing_module_for_test'\. Studio put the engine back as it was/);
    expect(body.rolled_back).toBe(true);
    expect(fs.existsSync(path.join(engineCopy, 'custom_nodes', 'real-broken'))).toBe(false);
    const info = await objectInfo();
    expect(info.RealGoodNode).toBeDefined();
    expect(info.RealNeverSeen).toBeUndefined();
    // The snapshot taken before it and the one taken at the next change list the same Python packages.
    expect((await post('/api/admin/nodes/real-good/disable')).status).toBe(200);
    const [afterIt, beforeIt] = await snapshots();
    expect(beforeIt?.reason).toBe('before installing real-broken');
    expect(afterIt?.reason).toBe('before disabling real-good');
    expect(afterIt?.python_packages).toBe(beforeIt?.python_packages);
  }, 400_000);

  it('disables and enables a package, as the real engine sees it', async () => {
    expect((await objectInfo()).RealGoodNode).toBeUndefined();
    expect(fs.existsSync(path.join(engineCopy, 'custom_nodes', 'real-good.disabled'))).toBe(true);
    const res = await post('/api/admin/nodes/real-good/enable');
    expect(await res.json()).toMatchObject({ status: 'enabled', verified: true, node_types: ['RealGoodNode'] });
  }, 300_000);
});

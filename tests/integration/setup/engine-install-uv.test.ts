/**
 * The installer's uv branch, offline: with `uv` on the PATH the environment is made and filled by
 * uv instead of the base Python's venv and pip. uv itself is not installable here (no package
 * source this machine reaches carries it), so a strict stand-in (tests/helpers/fake-uv.ts) takes
 * exactly uv's documented command lines and does the work with venv and pip. What is checked is
 * Studio's side: the command lines it writes, that every package (pip's own seed included) comes
 * from the configured indexes, and that the result is proven and becomes the engine.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeEngineRepo, makeWheels, startFakeIndex, type FakeIndex } from '../../helpers/fake-engine-sources.js';
import { installFakeUv, type FakeUv } from '../../helpers/fake-uv.js';
import { HOST_PYTHON, offlineInstallEnv, runJob, storedChoice } from '../../helpers/setup-install.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

const LONG = 240_000;
let root: string;
let index: FakeIndex;
let uv: FakeUv;
let dataDir: string;
let t: TestStudio;

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'setup-install-uv-'));
  const bare = makeEngineRepo(root, [{ tag: 'v0.1.0' }]);
  index = await startFakeIndex(makeWheels(root));
  uv = installFakeUv(root);
  dataDir = path.join(root, 'studio');
  const env = offlineInstallEnv(root, bare, index, { pathPrefix: `${uv.binDir}:` });
  t = await startTestStudio({ dir: dataDir, env, relaunch: () => undefined });
}, LONG);

afterAll(async () => {
  await t?.stop();
  await index?.close();
  fs.rmSync(root, { recursive: true, force: true });
}, LONG);

it('makes and fills the environment with uv, every package from the configured indexes, and proves the engine', async () => {
  const job = await runJob(t, '/api/admin/setup/engine', { version: 'v0.1.0' });
  expect(job.error).toBeNull();
  expect(job).toMatchObject({ status: 'finished', kind: 'install', version: 'v0.1.0' });
  expect(job.steps.map((s) => [s.name, s.status])).toEqual([
    ['space', 'done'], ['clone', 'done'], ['environment', 'done'], ['torch', 'done'], ['requirements', 'done'], ['check', 'done'], ['prove', 'done'], ['switch', 'done'],
  ]);
  expect(job.log.some((line) => line.startsWith(`$ ${path.join(uv.binDir, 'uv')} venv`))).toBe(true);

  const target = path.join(dataDir, 'engine', 'v0.1.0');
  const venv = path.join(target, 'venv');
  const python = path.join(venv, 'bin', 'python');
  const calls = uv.calls();
  expect(calls[0]).toEqual(['venv', '--seed', '--python', HOST_PYTHON, '--index-url', index.simpleUrl, venv]);
  const installs = calls.slice(1);
  expect(installs.length).toBeGreaterThanOrEqual(2);
  for (const call of installs) {
    // Every install goes into the new environment and names its index: nothing from uv's default one.
    expect(call.slice(0, 4)).toEqual(['pip', 'install', '--python', python]);
    expect(call).toContain('--index-url');
  }
  expect(installs[0]).toEqual(expect.arrayContaining(['torch', '--index-url', `${index.torchUrl}/cpu`]));
  expect(installs.at(-1)).toEqual(expect.arrayContaining(['-r', 'requirements.txt', '--index-url', index.simpleUrl]));
  expect(index.requests).toEqual(expect.arrayContaining(['GET /torch/cpu/torch/', 'GET /simple/engine-helper/']));
  expect(storedChoice(dataDir)?.current).toMatchObject({ dir: path.join(target, 'ComfyUI'), python, version: 'v0.1.0', mode: 'managed' });
}, LONG);

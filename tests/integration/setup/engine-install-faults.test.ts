/**
 * An engine install that fails at each step — the download, the environment, torch, the first
 * start's smoke prompt, a full disk, a step past its deadline, a cancel — leaves the engine in use
 * running and untouched, stores no new choice, and leaves no half-made folder. Each failure says in
 * plain words which step failed and why.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeEngineRepo, makeWheels, startFakeIndex, type FakeIndex } from '../../helpers/fake-engine-sources.js';
import { fakeGpuPath, writeFakeGpuTools } from '../../helpers/fake-gpu-tools.js';
import { engineFolders, eventsOf, HOST_PYTHON, offlineInstallEnv, report, runJob, storedChoice, waitForJob } from '../../helpers/setup-install.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { mountCommand, mountTinyDisk } from '../../helpers/tiny-disk.js';
import type { InstallState } from '../../../server/contracts/setup.contract.js';

const LONG = 240_000;
let root: string;
let wheels: { torch: string; general: string };
let index: FakeIndex;
let base: Record<string, string>;
const running: TestStudio[] = [];

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'setup-faults-'));
  const bare = makeEngineRepo(root, [{ tag: 'v0.1.0' }, { tag: 'v0.9.0', smokeFails: true }]);
  wheels = makeWheels(root);
  index = await startFakeIndex(wheels);
  base = offlineInstallEnv(root, bare, index);
}, LONG);

afterAll(async () => {
  for (const t of running) await t.stop();
  await index?.close();
  fs.rmSync(root, { recursive: true, force: true });
}, LONG);

async function studio(env: Record<string, string> = {}, dir?: string): Promise<TestStudio> {
  const t = await startTestStudio({ env: { ...base, ...env }, dir, startEngine: true });
  running.push(t);
  return t;
}

/** The failure left nothing behind: the stand-in still serves, no choice stored, no engine folder. */
async function untouched(t: TestStudio, job: InstallState): Promise<void> {
  expect(storedChoice(t.dir)).toBeNull();
  expect(engineFolders(t.dir)).toEqual([]);
  let r = await report(t);
  while (r.engine.status === 'starting') r = await new Promise((resolve) => setTimeout(resolve, 200)).then(() => report(t));
  expect(r.engine).toMatchObject({ mode: 'standin', status: 'running' });
  const failed = (await eventsOf(t, 'engine.install.')).filter((e) => e.data.id === job.id && (e.type === 'engine.install.failed' || e.type === 'engine.install.cancelled'));
  expect(failed).toHaveLength(1);
  expect((await eventsOf(t, 'engine.switched')).filter((e) => e.data.id === job.id)).toEqual([]);
}

function failedAt(job: InstallState): string | undefined {
  return job.steps.find((s) => s.status === 'failed')?.name;
}

describe('a failed install changes nothing', () => {
  let t: TestStudio;
  beforeAll(async () => {
    t = await studio();
  }, LONG);

  it('download: a release tag the repository does not have', async () => {
    const job = await runJob(t, '/api/admin/setup/engine', { version: 'v9.9.9' });
    expect(job.status).toBe('failed');
    expect(failedAt(job)).toBe('clone');
    expect(job.error).toMatch(/^Downloading the engine \(git clone\) failed \(exit 128\): .*v9\.9\.9 not found/);
    await untouched(t, job);
  }, LONG);

  it('smoke prompt: the new engine starts but cannot run a prompt', async () => {
    const job = await runJob(t, '/api/admin/setup/engine', { version: 'v0.9.0' });
    expect(job.status).toBe('failed');
    expect(failedAt(job)).toBe('prove');
    expect(job.error).toBe('The smoke prompt failed in the engine: CUDA error: no kernel image is available for execution on the device');
    await untouched(t, job);
  }, LONG);

  it('cancel: the user stops it half-way', async () => {
    const res = await t.api('/api/admin/setup/engine', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ version: 'v0.1.0' }) });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as InstallState;
    // Cancelled while the environment is being made or torch installed: a folder exists by then.
    for (;;) {
      const step = (await report(t)).install?.steps.find((s) => s.status === 'running')?.name;
      if (step === 'environment' || step === 'torch' || step === 'requirements') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(engineFolders(t.dir)).toEqual(['v0.1.0']);
    const cancel = await t.api('/api/admin/setup/engine', { method: 'DELETE' });
    expect(cancel.status).toBe(200);
    const job = await waitForJob(t, id);
    expect(job).toMatchObject({ status: 'cancelled', error: 'Cancelled' });
    await untouched(t, job);
    expect((await t.api('/api/admin/setup/engine', { method: 'DELETE' })).status).toBe(409);
  }, LONG);
});

describe('failures of the machine', () => {
  it('environment: no usable Python', async () => {
    const t = await studio({ ENGINE_INSTALL_PYTHON: path.join(root, 'no-python', 'python3') });
    const job = await runJob(t, '/api/admin/setup/engine', { version: 'v0.1.0' });
    expect(failedAt(job)).toBe('environment');
    expect(job.error).toMatch(/^No usable Python to make the engine's environment: .*no-python\/python3 was not found\. Install Python 3\.10 or newer/);
    await untouched(t, job);
  }, LONG);

  it('environment: a Python without ensurepip (Debian or Ubuntu without python3-venv) is named, not left to venv', async () => {
    // This machine's Python with its ensurepip hidden, as Debian ships python3 without python3-venv.
    const hidden = path.join(root, 'no-ensurepip');
    fs.mkdirSync(hidden, { recursive: true });
    fs.writeFileSync(path.join(hidden, 'ensurepip.py'), 'raise ModuleNotFoundError("No module named \'ensurepip\'")\n');
    fs.writeFileSync(path.join(hidden, 'python3'), `#!/bin/sh\nPYTHONPATH='${hidden}' exec '${HOST_PYTHON}' "$@"\n`, { mode: 0o755 });
    const t = await studio({ ENGINE_INSTALL_PYTHON: path.join(hidden, 'python3') });
    const job = await runJob(t, '/api/admin/setup/engine', { version: 'v0.1.0' });
    expect(failedAt(job)).toBe('environment');
    expect(job.error).toMatch(/no-ensurepip\/python3 \(Python 3\.\d+\) has no ensurepip, so its venv cannot put pip into the engine's environment: install its venv support \(Debian, Ubuntu: apt install python3-venv\), or uv$/);
    await untouched(t, job);
  }, LONG);

  it('torch: the index has no build for this GPU (an NVIDIA driver with CUDA 12.4)', async () => {
    const gpuDir = path.join(root, 'gpu-tools');
    const entries = writeFakeGpuTools(gpuDir, { nvidia: 'nvidia-550-rtx4060ti-x2' });
    const t = await studio({ PATH: `${fakeGpuPath(entries)}:${base.PATH}`, STUDIO_NVIDIA_SMI: 'nvidia-smi' });
    expect((await report(t)).torch).toMatchObject({ backend: 'cuda', variant: 'cu124', index_url: `${index.torchUrl}/cu124` });
    const job = await runJob(t, '/api/admin/setup/engine', { version: 'v0.1.0' });
    expect(failedAt(job)).toBe('torch');
    expect(job.error).toMatch(/^Installing torch \(cu124\) failed \(exit 1\): ERROR: Could not find a version that satisfies the requirement torch/);
    await untouched(t, job);
  }, LONG);

  it('timeout: the package index stops answering', async () => {
    const slow = await startFakeIndex(wheels);
    slow.delayMs = 60_000;
    try {
      const t = await studio({ ENGINE_TORCH_INDEX_URL: slow.torchUrl, ENGINE_PIP_TIMEOUT_S: '3' });
      const job = await runJob(t, '/api/admin/setup/engine', { version: 'v0.1.0' });
      expect(failedAt(job)).toBe('torch');
      expect(job.error).toBe('Installing torch (cpu) timed out after 3 s');
      await untouched(t, job);
    } finally {
      await slow.close();
    }
  }, LONG);

  const mount = mountCommand();
  it.skipIf('reason' in mount && !process.env.CI)('disk full: the free-space check refuses before anything is written', async () => {
    const disk = mountTinyDisk(64);
    try {
      const t = await studio({}, disk.dir);
      const asked = index.requests.length;
      const job = await runJob(t, '/api/admin/setup/engine', { version: 'v0.1.0' });
      expect(failedAt(job)).toBe('space');
      expect(job.error).toMatch(/^Not enough free disk space for the engine v0\.1\.0: needs 3\.0 GB, \d+(\.\d)? MB free$/);
      expect(index.requests.slice(asked)).toEqual([]);
      await untouched(t, job);
      await running.pop()!.stop();
    } finally {
      disk.unmount();
    }
  }, LONG);
});

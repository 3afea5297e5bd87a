/**
 * Installing an engine release into `STUDIO_DIR/engine/<version>/`: the free-space check, then
 * `ComfyUI/` (a shallow clone of the release tag), `venv/` (uv when the machine has it, else the
 * system Python ≥ 3.10 with `venv`), torch from the index that fits the GPU, the engine's
 * requirements with torch and numpy held as installed, and (on an update) the node packages
 * carried over. The folder carries a marker until the last step is done: a failed, cancelled or
 * interrupted install is removed whole, and a marker found at boot means one to remove.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { InstallStepName, TorchChoice } from '../contracts/setup.contract.js';
import { ensureFreeSpace } from '../free-space.js';
import { readPinnedVersions, writeConstraints } from '../nodes/pinned-packages.js';
import { runCommand, type RunResult } from '../process/run-command.js';
import { venvPython } from './install-finder.js';
import { checkTorch } from '../gpu/index.js';

/** Present while an install is unfinished. */
const INCOMPLETE_MARKER = '.studio-incomplete';
/** The oldest Python the engine supports. */
const MIN_PYTHON: readonly [number, number] = [3, 10];

export interface InstallTimeouts {
  cloneMs: number;
  environmentMs: number;
  packagesMs: number;
}

export interface InstallPlan {
  /** The release tag. */
  version: string;
  repoUrl: string;
  /** `STUDIO_DIR/engine/<version>`. */
  target: string;
  torch: TorchChoice;
  /** The general package index (PyPI's simple API). */
  packageIndexUrl: string;
  /** The Python that makes the environment when uv is absent. */
  basePython: string;
  /** uv's path, or null. */
  uv: string | null;
  /** On an update: the engine whose `custom_nodes` packages come along. */
  carryNodesFrom: string | null;
  timeouts: InstallTimeouts;
}

export interface InstalledEngine {
  dir: string;
  python: string;
}

export interface InstallHooks {
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  step(name: InstallStepName): void;
  line(text: string): void;
}

/** Thrown by a step: `message` says in plain words what failed. */
export class InstallError extends Error {
  constructor(
    message: string,
    readonly cancelled = false,
  ) {
    super(message);
  }
}

/** Run the whole install; on any failure the target folder is removed and the error rethrown. */
export async function installEngine(plan: InstallPlan, hooks: InstallHooks): Promise<InstalledEngine> {
  if (fs.existsSync(plan.target)) throw new InstallError(`${plan.version} is already installed (${plan.target})`);
  hooks.step('space');
  await fsp.mkdir(path.dirname(plan.target), { recursive: true });
  await ensureFreeSpace(path.dirname(plan.target), plan.torch.needs_bytes, `the engine ${plan.version}`);
  await fsp.mkdir(plan.target);
  await fsp.writeFile(path.join(plan.target, INCOMPLETE_MARKER), `${new Date().toISOString()}\n`);
  try {
    const installed = await runSteps(plan, hooks);
    await fsp.rm(path.join(plan.target, INCOMPLETE_MARKER));
    return installed;
  } catch (err) {
    await fsp.rm(plan.target, { recursive: true, force: true });
    throw err;
  }
}

async function runSteps(plan: InstallPlan, hooks: InstallHooks): Promise<InstalledEngine> {
  const dir = path.join(plan.target, 'ComfyUI');
  const venv = path.join(plan.target, 'venv');
  const python = venvPython(venv, process.platform);
  const run = (label: string, command: string, args: string[], timeoutMs: number, cwd?: string) => runStep(label, command, args, { cwd, timeoutMs }, hooks);

  hooks.step('clone');
  // A shallow clone of the tag only: the engine's full history is hundreds of megabytes.
  await run('Downloading the engine (git clone)', 'git', ['clone', '--depth', '1', '--branch', plan.version, '--', plan.repoUrl, dir], plan.timeouts.cloneMs);

  hooks.step('environment');
  if (!plan.uv) await checkBasePython(plan.basePython, hooks, plan.timeouts.environmentMs);
  // A base Python whose own torch already works here (a distribution's torch, a ROCm build the
  // user made) is used as it is: the environment sees its packages, and nothing is downloaded.
  // Not with uv: its installs do not count a base Python's packages as installed (astral-sh/uv#7358),
  // so the engine's requirements would fetch torch again, at a version the index may not have.
  const baseTorch = plan.uv ? null : await usableBaseTorch(plan, hooks);
  const shareBase = baseTorch ? ['--system-site-packages'] : [];
  if (plan.uv) {
    // --seed puts pip in (node package installs later use the environment's own pip); it comes from
    // the configured index like every other package, not from uv's default one.
    await run('Making the Python environment (uv venv)', plan.uv, ['venv', '--seed', ...shareBase, '--python', plan.basePython, '--index-url', plan.packageIndexUrl, venv], plan.timeouts.environmentMs);
  } else {
    await run('Making the Python environment (python -m venv)', plan.basePython, ['-m', 'venv', ...shareBase, venv], plan.timeouts.environmentMs);
  }

  const pip = (label: string, args: string[], cwd?: string) =>
    plan.uv
      ? run(label, plan.uv, ['pip', 'install', '--python', python, ...args], plan.timeouts.packagesMs, cwd)
      : run(label, python, ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', ...args], plan.timeouts.packagesMs, cwd);

  hooks.step('torch');
  if (baseTorch) {
    hooks.line(`torch ${baseTorch} of ${plan.basePython} works on this machine (${plan.torch.backend}): the environment uses it as it is, nothing is downloaded`);
  } else {
    const torchIndex = plan.torch.index_url ?? plan.packageIndexUrl;
    hooks.line(`torch: ${plan.torch.reason} (${torchIndex})`);
    await pip(`Installing torch (${plan.torch.variant ?? 'default build'})`, ['torch', 'torchvision', 'torchaudio', '--index-url', torchIndex]);
  }

  hooks.step('requirements');
  const constraints = await heldPackages(python, plan.target, hooks);
  await pip("Installing the engine's requirements (pip)", ['-r', 'requirements.txt', '-c', constraints, '--index-url', plan.packageIndexUrl], dir);

  if (plan.carryNodesFrom) {
    hooks.step('nodes');
    await carryNodePackages(plan.carryNodesFrom, dir, ['-c', constraints, '--index-url', plan.packageIndexUrl], pip, hooks);
  }

  hooks.step('check');
  const torch = await checkTorch(python, plan.torch.backend, hooks.env, { cwd: dir });
  if (!torch.works) throw new InstallError(`The new environment's torch does not work: ${torch.problem}`);
  hooks.line(`torch ${torch.torch} works (${plan.torch.backend})`);
  return { dir, python };
}

/** torch/torchvision/torchaudio/numpy as now installed, as a constraints file (the node installs' rule). */
async function heldPackages(python: string, target: string, hooks: InstallHooks): Promise<string> {
  let versions: Record<string, string>;
  try {
    // Its scratch file goes in the target: a Python in a chroot sees only its own tree.
    versions = await readPinnedVersions(python, hooks.env, target);
  } catch (err) {
    throw new InstallError(`Could not read the new environment's packages: ${String(err)}`);
  }
  hooks.line(`holding ${Object.entries(versions).map(([p, v]) => `${p}==${v}`).join(', ') || 'nothing'} as installed`);
  return writeConstraints(target, versions);
}

/** Each node package of the old engine's `custom_nodes` that the new checkout lacks, copied, with its requirements. */
async function carryNodePackages(fromDir: string, toDir: string, pipArgs: string[], pip: (label: string, args: string[], cwd?: string) => Promise<RunResult>, hooks: InstallHooks): Promise<void> {
  const from = path.join(fromDir, 'custom_nodes');
  const to = path.join(toDir, 'custom_nodes');
  await fsp.mkdir(to, { recursive: true });
  for (const entry of await fsp.readdir(from, { withFileTypes: true }).catch(() => [])) {
    if (!entry.isDirectory() || entry.name === '__pycache__' || fs.existsSync(path.join(to, entry.name))) continue;
    hooks.line(`carrying node package ${entry.name} over`);
    await fsp.cp(path.join(from, entry.name), path.join(to, entry.name), { recursive: true, filter: (src) => path.basename(src) !== '__pycache__' });
    if (fs.existsSync(path.join(to, entry.name, 'requirements.txt'))) {
      await pip(`Installing the requirements of node package ${entry.name}`, ['-r', 'requirements.txt', ...pipArgs], path.join(to, entry.name));
    }
  }
}

/** The base Python's torch version when it imports and fits this machine's GPU (torch 2 or newer), else null. */
async function usableBaseTorch(plan: InstallPlan, hooks: InstallHooks): Promise<string | null> {
  const check = await checkTorch(plan.basePython, plan.torch.backend, hooks.env, { timeoutMs: plan.timeouts.environmentMs });
  if (hooks.signal.aborted) throw new InstallError('Cancelled', true);
  if (!check.works || !check.torch) return null;
  if (Number(/^(\d+)/.exec(check.torch)?.[1] ?? 0) < 2) {
    hooks.line(`torch ${check.torch} of ${plan.basePython} is older than the engine runs with; a new one is installed`);
    return null;
  }
  return check.torch;
}

/** Debian and Ubuntu ship Python's `venv` without `ensurepip` (the python3-venv package): such a venv has no pip. */
const ASK_BASE = 'import sys, venv\ntry:\n    import ensurepip\n    pip = 1\nexcept ImportError:\n    pip = 0\nprint("%d.%d %d" % (sys.version_info[0], sys.version_info[1], pip))';

async function checkBasePython(python: string, hooks: InstallHooks, timeoutMs: number): Promise<void> {
  const result = await runCommand(python, ['-c', ASK_BASE], { env: hooks.env, timeoutMs, signal: hooks.signal });
  if (result.aborted) throw new InstallError('Cancelled', true);
  const version = /^(\d+)\.(\d+) ([01])$/m.exec(result.stdout.trim());
  if (result.code !== 0 || !version) {
    throw new InstallError(`No usable Python to make the engine's environment: ${python} ${result.code === null ? 'was not found' : `failed: ${tail(result)}`}. Install Python ${MIN_PYTHON.join('.')} or newer with venv (or uv)`);
  }
  const [major, minor] = [Number(version[1]), Number(version[2])];
  if (major < MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor < MIN_PYTHON[1])) {
    throw new InstallError(`${python} is Python ${major}.${minor}; the engine needs ${MIN_PYTHON.join('.')} or newer`);
  }
  if (version[3] === '0') {
    throw new InstallError(`${python} (Python ${major}.${minor}) has no ensurepip, so its venv cannot put pip into the engine's environment: install its venv support (Debian, Ubuntu: apt install python3-venv), or uv`);
  }
  hooks.line(`base Python ${major}.${minor} (${python})`);
}

async function runStep(label: string, command: string, args: string[], opts: { cwd?: string; timeoutMs: number }, hooks: InstallHooks): Promise<RunResult> {
  hooks.line(`$ ${[command, ...args].join(' ')}`);
  // git must never stop to ask for a password: it would hang until the deadline.
  const env = { ...hooks.env, GIT_TERMINAL_PROMPT: '0', PIP_NO_INPUT: '1' };
  const result = await runCommand(command, args, { env, cwd: opts.cwd, timeoutMs: opts.timeoutMs, signal: hooks.signal, onLine: (line) => line.trim() && hooks.line(line) });
  if (result.aborted) throw new InstallError('Cancelled', true);
  if (result.timedOut) throw new InstallError(`${label} timed out after ${Math.round(opts.timeoutMs / 1000)} s`);
  if (result.code !== 0) throw new InstallError(`${label} failed${result.code === null ? ` (${command} could not be started)` : ` (exit ${result.code})`}: ${tail(result)}`);
  return result;
}

function tail(result: RunResult): string {
  const text = (result.stderr.trim() || result.stdout.trim()).split('\n').filter((l) => l.trim());
  // pip and git say why in their first error line (pip's "ERROR: Could not find a version…" comes
  // before its general "ResolutionImpossible" pointer; git's "fatal: …").
  const errorLine = text.find((l) => /^(ERROR|fatal|error):/i.test(l.trim()));
  return (errorLine ?? text.slice(-3).join(' / ')).trim().slice(0, 600);
}

/** Remove installs a crash left unfinished (their marker is still there). */
export async function removeUnfinished(enginesDir: string): Promise<string[]> {
  const removed: string[] = [];
  for (const entry of await fsp.readdir(enginesDir, { withFileTypes: true }).catch(() => [])) {
    const dir = path.join(enginesDir, entry.name);
    if (entry.isDirectory() && fs.existsSync(path.join(dir, INCOMPLETE_MARKER))) {
      await fsp.rm(dir, { recursive: true, force: true });
      removed.push(dir);
    }
  }
  return removed;
}

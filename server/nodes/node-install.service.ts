/**
 * Installing an engine node package (spec "Install rules"): `git clone --depth 1` into the
 * engine's `custom_nodes`, `requirements.txt` with the engine's own Python under a constraints
 * file that pins torch/torchvision/torchaudio/numpy as installed, then `install.py`. One install
 * at a time; every output line goes to the activity log; any failure or timeout removes the
 * partial folder and answers 500 with the tail of stderr (500 characters).
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { EventBus } from '../events/event-bus.js';
import { DomainError } from '../domain-error.js';
import { runCommand, type RunResult } from '../process/run-command.js';
import { isResolutionConflict, PINNED, readPinnedVersions, writeConstraints } from './pinned-packages.js';
import type { InstallResult } from '../contracts/nodes.contract.js';

/** Spec Limits: install error text. */
export const INSTALL_ERROR_CHARS = 500;

export interface InstallTarget {
  /** The engine's `custom_nodes` folder, or null when Studio does not know it (external engine). */
  customNodesDir: string | null;
  python: string;
}

export interface NodeInstallDeps {
  target: InstallTarget;
  env: NodeJS.ProcessEnv;
  timeouts: { cloneTimeoutMs: number; pipTimeoutMs: number; scriptTimeoutMs: number };
  /** Where the constraints file is written. */
  scratchDir: string;
  events: EventBus;
  /** Each output line, as it arrives (the activity log). */
  log: (level: 'info' | 'ok' | 'error', message: string) => void;
}

/** The package name of a clone URL, or a 400. */
export function packageNameOf(raw: unknown): { url: string; name: string } {
  if (typeof raw !== 'string' || raw.trim() === '') throw new DomainError('invalid', 'url is required (an https:// git URL)');
  const url = raw.trim();
  if (!url.startsWith('https://')) throw new DomainError('invalid', 'url must start with https://');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DomainError('invalid', `url is not a valid URL: ${url}`);
  }
  const last = parsed.pathname.split('/').filter(Boolean).pop() ?? '';
  const name = last.replace(/\.git$/, '');
  // The name becomes a folder inside custom_nodes: one safe path segment.
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) throw new DomainError('invalid', `url does not end in a package name: ${url}`);
  return { url, name };
}

export class NodeInstallService {
  private queue: Promise<unknown> = Promise.resolve();
  private pinned: Promise<Record<string, string>> | null = null;

  constructor(private readonly deps: NodeInstallDeps) {}

  /** Validate, then install after any install already running. */
  install(rawUrl: unknown): Promise<InstallResult> {
    const { url, name } = packageNameOf(rawUrl);
    const dir = this.deps.target.customNodesDir;
    if (!dir) throw new DomainError('invalid', "Studio does not know this engine's folder: set ENGINE_DIR to install node packages");
    const run = this.queue.then(() => this.installNow(url, name, dir));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async installNow(url: string, name: string, customNodesDir: string): Promise<InstallResult> {
    const dest = path.join(customNodesDir, name);
    if (fs.existsSync(dest)) return { status: 'already_installed', name };
    await fsp.mkdir(customNodesDir, { recursive: true });
    this.deps.log('info', `Installing node package ${name} from ${url}`);
    try {
      await this.step('git clone', 'git', ['clone', '--depth', '1', '--', url, dest], customNodesDir, this.deps.timeouts.cloneTimeoutMs);
      if (fs.existsSync(path.join(dest, 'requirements.txt'))) await this.installRequirements(name, dest);
      if (fs.existsSync(path.join(dest, 'install.py'))) {
        await this.step('install.py', this.deps.target.python, ['install.py'], dest, this.deps.timeouts.scriptTimeoutMs);
      }
    } catch (err) {
      await fsp.rm(dest, { recursive: true, force: true });
      const detail = err instanceof DomainError ? err.message : String(err);
      this.deps.log('error', `${name}: ${detail}`);
      this.deps.events.emit('nodes.install.failed', 'error', `Node package ${name} could not be installed`, { name, url, error: detail });
      throw err;
    }
    this.deps.log('ok', `Installed node package ${name}; restart the engine to load it`);
    this.deps.events.emit('nodes.installed', 'success', `Node package ${name} installed; the engine needs a restart`, { name, url });
    return { status: 'installed', name, restart_required: true };
  }

  private async installRequirements(name: string, dest: string): Promise<void> {
    this.pinned ??= readPinnedVersions(this.deps.target.python, this.deps.env).catch((err: unknown) => {
      this.pinned = null;
      throw err;
    });
    const versions = await this.pinned;
    const constraints = await writeConstraints(this.deps.scratchDir, versions);
    const pins = Object.entries(versions).map(([pkg, version]) => `${pkg}==${version}`);
    if (pins.length > 0) this.deps.log('info', `${name}: keeping ${pins.join(', ')} as installed`);
    const args = ['-m', 'pip', 'install', '--disable-pip-version-check', '-r', 'requirements.txt', '-c', constraints];
    const result = await this.run(this.deps.target.python, args, dest, this.deps.timeouts.pipTimeoutMs);
    if (result.code === 0 && !result.timedOut) return;
    if (!result.timedOut && isResolutionConflict(result.stderr + result.stdout)) {
      throw new DomainError(
        'failed',
        clip(
          `Dependency install failed: ${name} needs versions that conflict with the engine's ${PINNED.filter((p) => versions[p]).join('/')} ` +
            `(kept at ${pins.join(', ')}), so it was not installed. pip said: ${lastLines(result.stderr || result.stdout)}`,
        ),
      );
    }
    throw stepError('Dependency install (pip)', result, this.deps.timeouts.pipTimeoutMs);
  }

  private async step(label: string, command: string, args: string[], cwd: string, timeoutMs: number): Promise<void> {
    const result = await this.run(command, args, cwd, timeoutMs);
    if (result.code !== 0 || result.timedOut) throw stepError(label, result, timeoutMs);
  }

  private run(command: string, args: string[], cwd: string, timeoutMs: number): Promise<RunResult> {
    // git must never stop to ask for a password on a private URL: it would hang until the deadline.
    const env = { ...this.deps.env, GIT_TERMINAL_PROMPT: '0' };
    return runCommand(command, args, { cwd, env, timeoutMs, onLine: (line) => line.trim() && this.deps.log('info', line) });
  }
}

function stepError(label: string, result: RunResult, timeoutMs: number): DomainError {
  if (result.timedOut) return new DomainError('failed', clip(`${label} timed out after ${Math.round(timeoutMs / 1000)} s`));
  return new DomainError('failed', clip(`${label} failed (exit ${result.code ?? 'none'}): ${lastLines(result.stderr || result.stdout)}`));
}

function lastLines(text: string): string {
  return text.trim().split('\n').slice(-6).join('\n');
}

/** Spec: stderr in `detail`, truncated to 500 characters (the end, where the error is). */
function clip(text: string): string {
  return text.length <= INSTALL_ERROR_CHARS ? text : `…${text.slice(-(INSTALL_ERROR_CHARS - 1))}`;
}

/**
 * The engine's environment as a node package change touches it: the folders in `custom_nodes`
 * (`<name>.disabled` is the engine's own "skip this one" convention), the Python packages, the
 * held versions and their constraints file; a snapshot of all of it, and putting one back.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { DomainError } from '../domain-error.js';
import { runCommand } from '../process/run-command.js';
import type { NodeSnapshot } from '../contracts/nodes.contract.js';
import { checkoutCommit, cloneAt, headCommit, originUrl, type GitRun } from './node-git.js';
import { diffPackages, listInstalled, type PackageVersions } from './python-env.js';
import { readPinnedVersions, writeConstraints } from './pinned-packages.js';
import { lastLines } from './pip-preview.js';

export const DISABLED_SUFFIX = '.disabled';

export interface NodeFolder {
  name: string;
  dir: string;
  disabled: boolean;
}

export interface NodeEnvironmentDeps {
  customNodesDir: string;
  python: string;
  env: NodeJS.ProcessEnv;
  scratchDir: string;
  timeouts: { cloneTimeoutMs: number; pipTimeoutMs: number };
  log: (level: 'info' | 'ok' | 'error', message: string) => void;
}

export class NodeEnvironment {
  private held: Promise<PackageVersions> | null = null;

  constructor(private readonly deps: NodeEnvironmentDeps) {}

  get customNodesDir(): string {
    return this.deps.customNodesDir;
  }

  /** The engine's Python. */
  get python(): string {
    return this.deps.python;
  }

  /** The environment its children (git, pip, install scripts) get. */
  get childEnv(): NodeJS.ProcessEnv {
    return this.deps.env;
  }

  git(timeoutMs = this.deps.timeouts.cloneTimeoutMs): GitRun {
    return { env: this.deps.env, timeoutMs, onLine: (line) => this.deps.log('info', line) };
  }

  /** Package folders in `custom_nodes` (hidden folders and `__pycache__` are not packages). */
  async folders(): Promise<NodeFolder[]> {
    const dir = this.deps.customNodesDir;
    if (!fs.existsSync(dir)) return [];
    const out: NodeFolder[] = [];
    for (const entry of await fsp.readdir(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith('.') || entry.name === '__pycache__') continue;
      const disabled = entry.name.endsWith(DISABLED_SUFFIX);
      out.push({ name: disabled ? entry.name.slice(0, -DISABLED_SUFFIX.length) : entry.name, dir: path.join(dir, entry.name), disabled });
    }
    return out.sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  async folder(name: string): Promise<NodeFolder | null> {
    return (await this.folders()).find((f) => f.name === name) ?? null;
  }

  installed(): Promise<PackageVersions> {
    return listInstalled(this.deps.python, this.deps.env, this.deps.scratchDir);
  }

  /** The held packages' installed versions (read once) and the constraints file pinning them. */
  async constraints(): Promise<{ held: PackageVersions; file: string }> {
    this.held ??= readPinnedVersions(this.deps.python, this.deps.env, this.deps.scratchDir).catch((err: unknown) => {
      this.held = null;
      throw new DomainError('failed', String(err instanceof Error ? err.message : err));
    });
    const held = await this.held;
    return { held, file: await writeConstraints(this.deps.scratchDir, held) };
  }

  /** The environment now: Python packages and every node package's commit. */
  async snapshot(reason: string): Promise<Omit<NodeSnapshot, 'id'>> {
    const git = this.git();
    const nodes: NodeSnapshot['nodes'] = [];
    for (const f of await this.folders()) nodes.push({ name: f.name, commit: await headCommit(git, f.dir), url: await originUrl(git, f.dir), disabled: f.disabled });
    return { created_at: new Date().toISOString(), reason, python: await this.installed(), nodes };
  }

  /** Put `snapshot` back: node folders (removed, re-cloned, moved to their commit, disabled state), then Python packages. */
  async restore(snapshot: Pick<NodeSnapshot, 'python' | 'nodes'>): Promise<void> {
    await this.restoreFolders(snapshot.nodes);
    await this.restorePython(snapshot.python);
  }

  private async restoreFolders(wanted: NodeSnapshot['nodes']): Promise<void> {
    const git = this.git();
    const byName = new Map(wanted.map((n) => [n.name, n]));
    for (const f of await this.folders()) {
      if (byName.has(f.name)) continue;
      this.deps.log('info', `Removing ${f.name} (not in the snapshot)`);
      await fsp.rm(f.dir, { recursive: true, force: true });
    }
    for (const node of wanted) {
      const current = await this.folder(node.name);
      let dir = current?.dir ?? null;
      if (!current) {
        if (!node.url) throw new DomainError('conflict', `${node.name} is gone and its origin is unknown, so it cannot be put back`);
        dir = path.join(this.deps.customNodesDir, node.name);
        this.deps.log('info', `Cloning ${node.name} again at ${node.commit?.slice(0, 12) ?? 'its newest commit'}`);
        await cloneAt(git, node.url, dir, node.commit);
      } else if (node.commit && (await headCommit(git, current.dir)) !== node.commit) {
        this.deps.log('info', `Moving ${node.name} back to commit ${node.commit.slice(0, 12)}`);
        await checkoutCommit(git, current.dir, node.commit);
      }
      const disabledNow = current?.disabled ?? false;
      if (dir && disabledNow !== node.disabled) {
        const target = path.join(this.deps.customNodesDir, node.disabled ? `${node.name}${DISABLED_SUFFIX}` : node.name);
        await fsp.rename(dir, target);
      }
    }
  }

  private async restorePython(wanted: PackageVersions): Promise<void> {
    const changes = diffPackages(wanted, await this.installed());
    const extra = changes.added.map((p) => p.name);
    const back = [...changes.removed.map((p) => `${p.name}==${p.version}`), ...[...changes.upgraded, ...changes.downgraded].map((c) => `${c.name}==${c.from}`)];
    if (extra.length > 0) {
      this.deps.log('info', `Removing Python packages added since: ${extra.join(', ')}`);
      await this.pip(['uninstall', '-y', ...extra], 'pip uninstall');
    }
    if (back.length > 0) {
      this.deps.log('info', `Putting back Python packages: ${back.join(', ')}`);
      await this.pip(['install', '--no-deps', ...back], 'pip install');
    }
    const left = diffPackages(wanted, await this.installed());
    const off = [...left.added.map((p) => p.name), ...left.removed.map((p) => p.name), ...left.upgraded.map((c) => c.name), ...left.downgraded.map((c) => c.name)];
    if (off.length > 0) throw new DomainError('failed', `The Python packages could not all be put back: ${off.join(', ')} still differ`);
  }

  /** Run pip in the engine's Python; a failure is an `upstream` error with pip's last lines. */
  async pip(args: string[], label: string, cwd?: string): Promise<void> {
    const result = await runCommand(this.deps.python, ['-m', 'pip', ...args, '--disable-pip-version-check'], {
      cwd,
      env: this.deps.env,
      timeoutMs: this.deps.timeouts.pipTimeoutMs,
      onLine: (line) => line.trim() && this.deps.log('info', line),
    });
    if (result.timedOut) throw new DomainError('failed', `${label} timed out after ${Math.round(this.deps.timeouts.pipTimeoutMs / 1000)} s`);
    if (result.code !== 0) throw new DomainError('failed', `${label} failed (exit ${result.code ?? 'none'}): ${lastLines(result.stderr || result.stdout)}`);
  }
}

/**
 * What this Studio runs jobs on, as a lock records it and a comparison reads it: the engine's
 * version (its `/system_stats`) and commit (its checkout), each node package folder's origin
 * and commit, a hash of the engine Python's installed packages (`name==version`, sorted: what
 * `pip freeze` lists), and a model file's SHA-256 (the hash store's, kept while size and mtime
 * are unchanged). For locks the engine, packages and Python are read at most once a minute (a
 * burst of submissions asks git and Python once); a comparison reads them afresh, so a fix just
 * made shows at once.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { DISABLED_SUFFIX } from '../nodes/node-environment.js';
import { headCommit, originUrl } from '../nodes/node-git.js';
import { listInstalled } from '../nodes/python-env.js';
import type { JobLock } from '../contracts/provenance.contract.js';
import type { ModelRef } from './graph-facts.js';

export interface EnvironmentDeps {
  /** `standin`, `managed` or `external`. */
  engineMode: string;
  /** The engine's checkout (null: not known, an external engine or the stand-in). */
  engineDir: string | null;
  enginePython: string;
  customNodesDir: string | null;
  modelsDir: string;
  env: NodeJS.ProcessEnv;
  scratchDir: string;
  /** The engine's own version (`/system_stats`), null when it does not answer. */
  engineVersion(): Promise<string | null>;
  /** A file's SHA-256 (the hash store's). */
  hashFile(file: string): Promise<string>;
}

export type EngineFacts = JobLock['engine'];
export type PackageFacts = JobLock['node_packages'];
export type PythonFacts = JobLock['python'];

interface Reading {
  at: number;
  engine: EngineFacts;
  packages: PackageFacts;
  python: PythonFacts;
}

export class Environment {
  private reading: Promise<Reading> | null = null;
  private readAt = 0;

  constructor(private readonly deps: EnvironmentDeps) {}

  /** The engine, its node packages and its Python now (a reading at most `maxAgeMs`, default a minute, old). */
  async current(maxAgeMs = 60_000): Promise<Omit<Reading, 'at'>> {
    const now = Date.now();
    if (!this.reading || now - this.readAt > maxAgeMs || maxAgeMs === 0) {
      this.readAt = now;
      this.reading = this.read().catch((err: unknown) => {
        this.reading = null;
        throw err;
      });
    }
    const { engine, packages, python } = await this.reading;
    return { engine, packages, python };
  }

  /** A model file here: its SHA-256 and size, or null when it is not there. */
  async model(ref: ModelRef): Promise<{ sha256: string; size: number } | null> {
    const file = path.join(this.deps.modelsDir, ref.folder, ref.file);
    if (!file.startsWith(path.join(this.deps.modelsDir, ref.folder) + path.sep)) return null;
    const stat = await fsp.stat(file).catch(() => null);
    if (!stat?.isFile()) return null;
    return { sha256: await this.deps.hashFile(file), size: stat.size };
  }

  private async read(): Promise<Reading> {
    const [engine, packages, python] = await Promise.all([this.engine(), this.packages(), this.python()]);
    return { at: Date.now(), engine, packages, python };
  }

  private async engine(): Promise<EngineFacts> {
    const version = await this.deps.engineVersion().catch(() => null);
    const dir = this.deps.engineDir;
    const commit = dir ? await headCommit({ env: this.deps.env, timeoutMs: 10_000 }, dir).catch(() => null) : null;
    return { kind: this.deps.engineMode, version, commit };
  }

  private async packages(): Promise<PackageFacts> {
    const dir = this.deps.customNodesDir;
    if (!dir || !fs.existsSync(dir)) return [];
    const git = { env: this.deps.env, timeoutMs: 10_000 };
    const names = (await fsp.readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory() && !e.name.startsWith('.') && e.name !== '__pycache__').map((e) => e.name);
    const out: PackageFacts = [];
    for (const folder of names.sort()) {
      const full = path.join(dir, folder);
      const disabled = folder.endsWith(DISABLED_SUFFIX);
      const [commit, repo] = await Promise.all([headCommit(git, full).catch(() => null), originUrl(git, full).catch(() => null)]);
      out.push({ name: disabled ? folder.slice(0, -DISABLED_SUFFIX.length) : folder, repo, commit, disabled });
    }
    return out;
  }

  private async python(): Promise<PythonFacts> {
    if (this.deps.engineMode === 'standin') return { packages_sha256: null, packages: null, skipped: 'the stand-in engine has no Python environment' };
    if (this.deps.engineMode === 'external' && !this.deps.engineDir) return { packages_sha256: null, packages: null, skipped: 'an external engine: Studio does not know its Python' };
    try {
      const installed = await listInstalled(this.deps.enginePython, this.deps.env, this.deps.scratchDir);
      const lines = Object.entries(installed)
        .map(([name, version]) => `${name}==${version}`)
        .sort();
      return { packages_sha256: crypto.createHash('sha256').update(lines.join('\n')).digest('hex'), packages: lines.length };
    } catch (err) {
      return { packages_sha256: null, packages: null, skipped: (err as Error).message.slice(0, 300) };
    }
  }
}

/**
 * The Nodes page's list: the engine's packages (grouped `object_info`), plus the folders of
 * `custom_nodes` the engine did not load (disabled, or failed to import), each with its commit,
 * whether the remote has a newer one (`git ls-remote`, cached an hour, asked in the background),
 * whether the engine's log shows it failed to import, and which workflows need it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DomainError } from '../domain-error.js';
import type { ObjectInfo } from '../engine/engine-graph.js';
import type { NodePackageRow } from '../contracts/nodes.contract.js';
import { ENGINE_CORE, groupNodePackages } from '../workflows/node-packages.js';
import type { EngineCheck } from './engine-check.js';
import type { NodeEnvironment } from './node-environment.js';
import { remoteHead, type GitRun } from './node-git.js';

const UPDATE_CHECK_MAX_AGE_MS = 60 * 60_000;

export interface WorkflowNeeds {
  id: string;
  required_nodes: string[];
}

export interface NodeListDeps {
  objectInfo: () => Promise<ObjectInfo>;
  env: NodeEnvironment | null;
  check: EngineCheck;
  workflows: () => Promise<WorkflowNeeds[]>;
  git: GitRun;
}

/** A clone's checked-out commit and origin, read from its `.git` files (no git process per row). */
function readClone(dir: string): { commit: string | null; url: string | null } {
  const gitDir = path.join(dir, '.git');
  if (!fs.existsSync(path.join(gitDir, 'HEAD'))) return { commit: null, url: null };
  const head = fs.readFileSync(path.join(gitDir, 'HEAD'), 'utf8').trim();
  let commit: string | null = /^[0-9a-f]{40}$/.test(head) ? head : null;
  const ref = /^ref: (.+)$/.exec(head)?.[1];
  if (ref) {
    const loose = path.join(gitDir, ref);
    if (fs.existsSync(loose)) commit = fs.readFileSync(loose, 'utf8').trim();
    else if (fs.existsSync(path.join(gitDir, 'packed-refs'))) {
      const line = fs.readFileSync(path.join(gitDir, 'packed-refs'), 'utf8').split('\n').find((l) => l.endsWith(` ${ref}`));
      commit = line?.split(' ')[0] ?? null;
    }
  }
  const config = fs.existsSync(path.join(gitDir, 'config')) ? fs.readFileSync(path.join(gitDir, 'config'), 'utf8') : '';
  const url = /\[remote "origin"\][^[]*?\burl\s*=\s*(\S+)/.exec(config)?.[1] ?? null;
  return { commit, url };
}

export class NodeListService {
  private readonly remote = new Map<string, { commit: string | null; at: number }>();
  private checking: Promise<void> | null = null;

  constructor(private readonly deps: NodeListDeps) {}

  /** The rows; `refreshUpdates` waits for a fresh `ls-remote` of every package instead of using the cache. */
  async list(refreshUpdates = false): Promise<NodePackageRow[]> {
    const info = await this.deps.objectInfo().catch((err: unknown) => {
      throw new DomainError('unavailable', `The engine is unreachable, so its nodes cannot be listed: ${err instanceof Error ? err.message : String(err)}`);
    });
    const packages = groupNodePackages(info);
    const folders = this.deps.env ? await this.deps.env.folders() : [];
    // Waits only when the log of the last start does not yet show "ready" (its lines trail the restart by a moment).
    const failures = await this.deps.check.failures();
    const needs = await this.deps.workflows().catch(() => []);
    const clones = new Map(folders.map((f) => [f.name, { ...readClone(f.dir), disabled: f.disabled }]));
    const urls = [...clones.values()].flatMap((c) => (c.url && c.commit ? [c.url] : []));
    if (refreshUpdates) await this.checkRemotes(urls, true);
    else void this.checkRemotes(urls, false);
    const rows: NodePackageRow[] = packages.map((p) => this.row(p.name, p.nodes, clones.get(p.name), failures.get(p.name)?.reason ?? null, needs));
    for (const [name, clone] of clones) {
      if (!packages.some((p) => p.name === name)) rows.push(this.row(name, [], clone, failures.get(name)?.reason ?? null, needs));
    }
    return rows.sort((a, b) => (a.name.toLowerCase() < b.name.toLowerCase() ? -1 : a.name.toLowerCase() > b.name.toLowerCase() ? 1 : 0));
  }

  private row(name: string, nodes: string[], clone: { commit: string | null; url: string | null; disabled: boolean } | undefined, importError: string | null, needs: WorkflowNeeds[]): NodePackageRow {
    const lower = name.toLowerCase();
    const workflows = name === ENGINE_CORE ? [] : needs.filter((w) => w.required_nodes.some((r) => r.toLowerCase() === lower || nodes.includes(r))).map((w) => w.id);
    const known = clone?.url ? this.remote.get(clone.url) : undefined;
    return {
      name,
      nodes,
      node_count: nodes.length,
      commit: clone?.commit ?? null,
      url: clone?.url ?? null,
      update_available: known?.commit && clone?.commit ? known.commit !== clone.commit : null,
      import_failed: importError !== null && !(clone?.disabled ?? false),
      import_error: clone?.disabled ? null : importError,
      disabled: clone?.disabled ?? false,
      workflows,
    };
  }

  /** `git ls-remote` each stale URL, one at a time (a slow remote never holds the list up unless asked). */
  private checkRemotes(urls: string[], force: boolean): Promise<void> {
    const stale = urls.filter((u) => force || Date.now() - (this.remote.get(u)?.at ?? 0) > UPDATE_CHECK_MAX_AGE_MS);
    if (stale.length === 0) return Promise.resolve();
    if (this.checking && !force) return this.checking;
    const run = (async () => {
      for (const url of stale) {
        const commit = await remoteHead(this.deps.git, url).catch(() => null);
        this.remote.set(url, { commit, at: Date.now() });
      }
    })().finally(() => {
      this.checking = null;
    });
    this.checking = run;
    return run;
  }
}

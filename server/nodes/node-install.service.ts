/**
 * Installing and updating a node package without breaking the engine: a preview first (the
 * commit, and pip's own dry-run of the requirements under the held-package constraints; a change
 * to a held package is refused before anything is written), the free-space guard, a snapshot,
 * then clone at the pinned commit, `requirements.txt`, `install.py`, a restart of the engine and
 * a check that the package's node types load. Any failure rolls back to the snapshot. A folder
 * a crash left half-installed (its unfinished-install file still there) is removed and installed
 * again, not taken for an installed package.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { DomainError } from '../domain-error.js';
import { ensureFreeSpace } from '../free-space.js';
import { runCommand } from '../process/run-command.js';
import type { InstallPreview, InstallResult, NodeSnapshot, PythonChanges } from '../contracts/nodes.contract.js';
import { checkoutCommit, cloneAt, headCommit, originUrl, remoteHead } from './node-git.js';
import { clip, moveFolder, type NodeChanges } from './node-change.js';
import { packageNameOf } from './node-url.js';
import { mapSourceInstead, repositoryOf, type KnownSources } from '../workflows/import/node-sources.js';
import { lastLines, previewRequirements } from './pip-preview.js';
import { installBytes } from './install-size.js';

const NO_CHANGES: PythonChanges = { added: [], upgraded: [], downgraded: [] };

export interface InstallRequest {
  url: unknown;
  dryRun?: boolean;
  commit?: string;
  /** The user was told the URL is not the node map's source for this package name, and goes ahead. */
  confirmSource?: boolean;
}

/** A preview and the scratch clone it was made from. */
interface Prepared {
  preview: InstallPreview;
  clone: string;
  scratch: string;
}

export class NodeInstallService {
  constructor(
    private readonly changes: NodeChanges,
    /** The install URLs the node maps know by package name. */
    private readonly knownSources?: () => Promise<KnownSources>,
  ) {}

  /**
   * `POST /api/admin/nodes/install`: a preview (`dryRun`) or the install itself. A package name
   * the node maps know, asked for from another URL (a shared workflow may name any repository
   * under a familiar name), is a 409 naming both before anything is fetched, unless confirmed.
   */
  async install(request: InstallRequest): Promise<InstallPreview | InstallResult> {
    const { url, name } = packageNameOf(request.url);
    const known = await this.knownSources?.().catch(() => null);
    const instead = known ? mapSourceInstead(name, url, known) : null;
    if (instead !== null && request.confirmSource !== true) {
      const { host, owner } = repositoryOf(url);
      throw new DomainError('conflict', `${name} is known to the node map as ${instead}; ${url} (${host}, owner ${owner}) is another repository under that name. Install from the node map's URL, or confirm this one (confirm_source: true).`, { source_check: { url, host, owner, known_url: instead } });
    }
    const env = this.changes.environment();
    return this.changes.serial(async () => {
      const found = await env.folder(name);
      if (found && !(await this.leftByCrash(name, found.dir))) return { status: 'already_installed', name } as const;
      const prepared = await this.prepare(name, url, request.commit ?? null, null, request.dryRun ? 'Previewing' : 'Installing');
      try {
        if (request.dryRun) return prepared.preview;
        if (found) {
          this.changes.deps.log('info', `Removing the ${name} folder an earlier install left unfinished (Studio stopped during it)`);
          await fsp.rm(found.dir, { recursive: true, force: true });
        }
        return await this.apply(prepared, null);
      } finally {
        await fsp.rm(prepared.scratch, { recursive: true, force: true });
      }
    });
  }

  /** `POST /api/admin/nodes/{name}/update`: to the remote's newest commit (or `commit`), same preview/snapshot/check path. */
  update(name: string, request: { dryRun?: boolean; commit?: string }): Promise<InstallPreview | InstallResult> {
    const env = this.changes.environment();
    return this.changes.serial(async () => {
      const folder = await env.folder(name);
      if (!folder) throw new DomainError('not_found', `No node package ${name}`);
      const git = env.git();
      const url = await originUrl(git, folder.dir);
      const current = await headCommit(git, folder.dir);
      if (!url || !current) throw new DomainError('conflict', `${name} is not a git clone, so Studio cannot update it`);
      const target = request.commit ?? (await remoteHead(git, url));
      const prepared = await this.prepare(name, url, target, current, request.dryRun ? 'Previewing the update of' : 'Updating');
      try {
        if (request.dryRun) return prepared.preview;
        if (target === current) throw new DomainError('conflict', `${name} is already at commit ${current.slice(0, 12)}`);
        return await this.apply(prepared, folder.dir);
      } finally {
        await fsp.rm(prepared.scratch, { recursive: true, force: true });
      }
    });
  }

  /**
   * True when the folder is what an install Studio never finished left behind: its unfinished-install
   * file is there and the folder is not a checkout of some other commit (a crash mid-copy may
   * leave no `.git` at all). A package put there by other means has no such file.
   */
  private async leftByCrash(name: string, dir: string): Promise<boolean> {
    const unfinished = await this.changes.deps.unfinished.get(name);
    if (!unfinished) return false;
    const head = await headCommit(this.changes.environment().git(), dir);
    return head === null || !unfinished.commit || head === unfinished.commit;
  }

  /** Clone into a scratch folder and dry-run its requirements: nothing of the engine is touched. */
  private async prepare(name: string, url: string, commit: string | null, current: string | null, verb: string): Promise<Prepared> {
    const env = this.changes.environment();
    const { scratchDir } = this.changes.deps;
    await fsp.mkdir(scratchDir, { recursive: true });
    const scratch = await fsp.mkdtemp(path.join(scratchDir, 'node-preview-'));
    const clone = path.join(scratch, name);
    try {
      // The Nodes page follows the activity log from this line on (it ends with the URL).
      this.changes.deps.log('info', `${verb} node package ${name} from ${url}`);
      const pinned = await cloneAt(env.git(), url, clone, commit);
      const { held, file } = await env.constraints();
      let python = NO_CHANGES;
      if (fs.existsSync(path.join(clone, 'requirements.txt'))) {
        const installed = await env.installed();
        const run = { python: envPython(this.changes), env: envVars(this.changes), timeoutMs: this.changes.deps.timeouts.pipTimeoutMs, scratchDir, onLine: (l: string) => this.changes.deps.log('info', l) };
        python = await previewRequirements(run, { dir: clone, name, installed, held, constraints: file });
      }
      return { preview: { status: 'preview', name, url, commit: pinned, current_commit: current, python, held }, clone, scratch };
    } catch (err) {
      await fsp.rm(scratch, { recursive: true, force: true });
      const message = err instanceof Error ? err.message : String(err);
      this.changes.deps.log('error', message.startsWith(name) ? message : `${name}: ${message}`);
      throw err;
    }
  }

  /** Snapshot, then the steps below, marking a new package's folder unfinished until they are done. */
  private async apply({ preview, clone }: Prepared, existing: string | null): Promise<InstallResult> {
    const env = this.changes.environment();
    const { name, url, commit } = preview;
    await ensureFreeSpace(env.customNodesDir, await installBytes(clone, preview.python), `installing ${name}`);
    const snap = await this.changes.snapshot(existing ? `before updating ${name}` : `before installing ${name}`);
    const dest = existing ?? path.join(env.customNodesDir, name);
    const { unfinished } = this.changes.deps;
    // Until recorded or rolled back, a new package's folder is unfinished work (see leftByCrash).
    if (!existing) await unfinished.set(name, { url, commit, snapshot_id: snap.id, started_at: new Date().toISOString() });
    try {
      return await this.applySteps(preview, clone, snap, dest, existing);
    } finally {
      if (!existing && !fs.existsSync(dest)) await unfinished.clear(name);
    }
  }

  /** Put the code in place, install its requirements, run its script, check the engine; roll back on any failure. */
  private async applySteps(preview: InstallPreview, clone: string, snap: NodeSnapshot, dest: string, existing: string | null): Promise<InstallResult> {
    const env = this.changes.environment();
    const { name, url, commit } = preview;
    const verb = existing ? 'updated' : 'installed';
    const before = snap.python;
    let restarted = false;
    const what = existing ? `${name} was not updated` : `${name} was not installed`;
    try {
      if (existing) await checkoutCommit(env.git(), existing, commit);
      else await moveFolder(clone, dest);
      if (fs.existsSync(path.join(dest, 'requirements.txt'))) {
        const { file } = await env.constraints();
        await env.pip(['install', '-r', 'requirements.txt', '-c', file], 'Dependency install (pip)', dest);
      }
      if (fs.existsSync(path.join(dest, 'install.py'))) await this.script(dest);
    } catch (err) {
      this.fail(name, url, err);
      return this.changes.rollback(what, err instanceof Error ? err.message : String(err), snap, restarted);
    }
    restarted = this.changes.deps.check.canRestart;
    const outcome = await this.changes.deps.check.verify(name);
    if (!outcome.ok) {
      this.fail(name, url, new Error(outcome.note ?? 'the engine check failed'));
      return this.changes.rollback(what, outcome.note ?? 'the engine check failed', snap, restarted);
    }
    const after = await env.installed();
    const added = Object.keys(after).filter((p) => before[p] === undefined);
    const record = (await this.changes.deps.records.all())[name];
    await this.changes.deps.records.set(name, { url, commit, installed_at: new Date().toISOString(), python_added: [...new Set([...(record?.python_added ?? []), ...added])].sort() });
    if (!existing) await this.changes.deps.unfinished.clear(name);
    const loaded = outcome.verified ? `; the engine loaded ${outcome.nodeTypes.length} node types` : '; restart the engine to load it';
    this.changes.deps.log('ok', `${verb === 'installed' ? 'Installed' : 'Updated'} node package ${name} at ${commit.slice(0, 12)}${loaded}`);
    this.changes.deps.events.emit('nodes.installed', 'success', `Node package ${name} ${verb}${loaded}`, { name, url, commit, snapshot_id: snap.id });
    return {
      status: verb,
      name,
      commit,
      restart_required: !outcome.verified,
      snapshot_id: snap.id,
      python: preview.python,
      verified: outcome.verified,
      node_types: outcome.nodeTypes,
      note: outcome.note,
    };
  }

  private async script(dest: string): Promise<void> {
    const { timeouts } = this.changes.deps;
    const result = await runCommand(envPython(this.changes), ['install.py'], {
      cwd: dest,
      env: envVars(this.changes),
      timeoutMs: timeouts.scriptTimeoutMs,
      onLine: (line) => line.trim() && this.changes.deps.log('info', line),
    });
    if (result.timedOut) throw new DomainError('failed', `install.py timed out after ${Math.round(timeouts.scriptTimeoutMs / 1000)} s`);
    if (result.code !== 0) throw new DomainError('failed', `install.py failed (exit ${result.code ?? 'none'}): ${lastLines(result.stderr || result.stdout)}`);
  }

  private fail(name: string, url: string, err: unknown): void {
    const detail = clip(err instanceof Error ? err.message : String(err));
    this.changes.deps.events.emit('nodes.install.failed', 'error', `Node package ${name} could not be installed`, { name, url, error: detail });
  }
}

function envPython(changes: NodeChanges): string {
  return changes.environment().python;
}

function envVars(changes: NodeChanges): NodeJS.ProcessEnv {
  return changes.environment().childEnv;
}

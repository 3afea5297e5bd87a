/**
 * Update from git (spec "Update rules 1–6") and the two syncs. The clone in `.repo/` is fetched,
 * the remote `version.json` compared with what is installed, and newer components copied as one
 * staged swap (all or nothing) while maintenance mode holds every other request off. A backend
 * or frontend update, like any applied update, ends with a restart 1 s after the answer.
 */
import crypto from 'node:crypto';
import fsp from 'node:fs/promises';
import type { EventBus } from '../events/event-bus.js';
import { DomainError } from '../domain-error.js';
import type { Logger } from '../logging.js';
import type { GitRepo } from './git-repo.js';
import { readLocalVersions, type LocalVersionPaths } from './local-versions.js';
import { applyStaged, type SwapOptions, type SwapTarget } from './staged-swap.js';
import { componentTargets, updatedVersionFile, versionFileTarget, type ComponentPaths } from './update-components.js';
import { readVersionFile, runtimeVersionOf } from './version-file.js';
import { compareVersions } from '../versions.js';
import { UPDATABLE_COMPONENTS, type UpdatableComponent, type UpdateResult, type VersionFile, type VersionSummary } from '../contracts/system.contract.js';
import { planWorkflowSync } from './workflow-sync.js';

export interface UpdateDeps {
  repo: GitRepo;
  appDir: string;
  versionPaths: LocalVersionPaths;
  appVersion: string;
  maintenance: { enable(): void; disable(): void };
  events: EventBus;
  logger: Logger;
  /** Reload what Studio keeps in memory of the data components (catalogs). */
  reloadData: () => Promise<void>;
  /** Restart Studio after `delayMs`, so the update's answer reaches the client first. */
  scheduleRestart: (delayMs: number) => void;
  /** Tests make a rename fail midway. */
  rename?: SwapOptions['rename'];
}

/** Spec Limits: restart delay after update. */
const RESTART_DELAY_MS = 1000;
const CATALOG_COMPONENTS = ['models', 'loras', 'llm_models'] as const;

export class UpdateService {
  private busy = false;

  constructor(private readonly deps: UpdateDeps) {}

  /** `GET /api/admin/system/remote-version`: fetch, then both sides' versions. */
  async remoteVersion(): Promise<{ remote: VersionSummary; local: VersionSummary }> {
    await this.deps.repo.fetch();
    const remote = await this.remoteFile();
    const local = await readLocalVersions(this.deps.versionPaths, this.deps.appVersion);
    return { remote: summary(remote), local: local.summary };
  }

  /** `POST /api/admin/system/update`. */
  async update(skip: readonly string[]): Promise<UpdateResult> {
    const unknown = skip.filter((name) => name !== 'runtime' && !(UPDATABLE_COMPONENTS as readonly string[]).includes(name));
    if (unknown.length > 0) throw new DomainError('invalid', `skip_components: unknown component ${unknown.join(', ')}; known: ${UPDATABLE_COMPONENTS.join(', ')}, runtime`);
    return this.exclusive(async () => {
      await this.deps.repo.fetch();
      const remote = await this.remoteFile();
      const local = await readLocalVersions(this.deps.versionPaths, this.deps.appVersion);
      const remoteRuntime = remote.min_runtime;
      if (remoteRuntime > local.runtimeVersion) {
        return {
          updated: [],
          restart_needed: false,
          blocked: true,
          message: `Update blocked: the repository's version needs runtime ${remoteRuntime}, this installation has runtime ${local.runtimeVersion}. Install the new Studio release first.`,
          remote_min_runtime: remoteRuntime,
          local_runtime: local.runtimeVersion,
        };
      }
      const debug = { local_version_json: local.file, remote_version_json: remote };
      const wanted = UPDATABLE_COMPONENTS.filter(
        (name) => !skip.includes(name) && remote.components[name] !== undefined && compareVersions(remote.components[name]?.version, local.summary.components[name]?.version) > 0,
      );
      if (wanted.length === 0) return { updated: [], restart_needed: false, message: 'Already up to date: nothing newer in the repository', debug };

      const targets: SwapTarget[] = [];
      for (const name of wanted) targets.push(...(await this.targets(name)));
      targets.push(versionFileTarget(this.deps.appDir, updatedVersionFile(local.file, remote, wanted)));
      await this.copy(targets, `Copying ${wanted.join(', ')}`);
      this.deps.events.emit('system.updated', 'success', `Updated: ${wanted.join(', ')}`, {
        updated: wanted,
        from: local.summary.app_version,
        to: wanted.includes('backend') ? remote.app_version : local.summary.app_version,
      });
      this.deps.scheduleRestart(RESTART_DELAY_MS);
      return { updated: wanted, restart_needed: true, message: `Updated: ${wanted.join(', ')}`, debug };
    });
  }

  /** `POST /api/admin/workflows/sync`: copy newer workflows from the clone. */
  async syncWorkflows(): Promise<{ updated: string[]; message: string }> {
    this.requireClone();
    return this.exclusive(async () => {
      const plan = await this.planned(() => planWorkflowSync(this.deps.versionPaths.workflowsDir, this.deps.repo.file('workflows')));
      if (plan.ids.length === 0 && plan.remote.version <= plan.local.version) return { updated: [], message: 'Workflows are up to date' };
      await applyStaged(await this.targets('workflows'), { id: swapId(), rename: this.deps.rename });
      this.deps.events.emit('workflows.synced', 'success', `Workflows synced: ${plan.ids.join(', ') || 'index only'}`, { updated: plan.ids });
      return { updated: plan.ids, message: plan.ids.length ? `Synced: ${plan.ids.join(', ')}` : 'Workflow index synced' };
    });
  }

  /** `POST /api/admin/models/sync`: merge newer catalogs (models, LoRAs, LLM models) from the clone. */
  async syncModels(): Promise<{ updated: string[]; message: string }> {
    this.requireClone();
    return this.exclusive(async () => {
      const remote = await this.remoteFile();
      const local = await readLocalVersions(this.deps.versionPaths, this.deps.appVersion);
      const remoteCatalogs = await Promise.all(CATALOG_COMPONENTS.map((name) => catalogVersion(this.deps.repo.file('resources', 'catalogs', `${name}.json`), remote, name)));
      const wanted = CATALOG_COMPONENTS.filter((name, i) => compareVersions(remoteCatalogs[i], local.summary.components[name]?.version) > 0);
      if (wanted.length === 0) return { updated: [], message: 'Catalogs are up to date' };
      const targets: SwapTarget[] = [];
      for (const name of wanted) targets.push(...(await this.targets(name)));
      await applyStaged(targets, { id: swapId(), rename: this.deps.rename });
      await this.reload();
      this.deps.events.emit('models.synced', 'success', `Catalogs synced: ${wanted.join(', ')}`, { updated: wanted });
      return { updated: wanted, message: `Synced: ${wanted.join(', ')}` };
    });
  }

  private requireClone(): void {
    if (!this.deps.repo.hasClone()) {
      throw new DomainError('conflict', 'There is no local copy of the repository yet: check for updates first (GET /api/admin/system/remote-version)');
    }
  }

  /** Copy with maintenance on (every route answers 503 meanwhile); everything is as before when it fails. */
  private async copy(targets: SwapTarget[], what: string): Promise<void> {
    this.deps.maintenance.enable();
    this.deps.events.emit('system.maintenance', 'info', `Maintenance mode on: ${what}`, { active: true });
    try {
      await applyStaged(targets, { id: swapId(), rename: this.deps.rename });
    } catch (err) {
      this.deps.logger.error('update failed; the previous version stays', err);
      this.deps.events.emit('system.update.failed', 'error', `Update failed, nothing was changed: ${(err as Error).message}`, {});
      throw err instanceof DomainError ? err : new DomainError('failed', `Update failed, the previous version stays in place: ${(err as Error).message}`);
    } finally {
      this.deps.maintenance.disable();
      this.deps.events.emit('system.maintenance', 'info', 'Maintenance mode off', { active: false });
    }
    await this.reload();
  }

  /** The files are in place whatever happens here; a reload that fails is logged, and the restart reloads anyway. */
  private async reload(): Promise<void> {
    await this.deps.reloadData().catch((err: unknown) => this.deps.logger.error('reloading the catalogs after an update failed', err));
  }

  private targets(name: UpdatableComponent): Promise<SwapTarget[]> {
    const paths: ComponentPaths = {
      appDir: this.deps.appDir,
      catalogsDir: this.deps.versionPaths.catalogsDir,
      workflowsDir: this.deps.versionPaths.workflowsDir,
      repoDir: this.deps.repo.dir,
    };
    return this.planned(() => componentTargets(name, paths));
  }

  private async planned<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      throw err instanceof DomainError ? err : new DomainError('broken', `The repository copy cannot be used: ${(err as Error).message}`);
    }
  }

  private async remoteFile(): Promise<VersionFile> {
    return this.planned(() => readVersionFile(this.deps.repo.file('resources', 'version.json')));
  }

  private async exclusive<T>(work: () => Promise<T>): Promise<T> {
    if (this.busy) throw new DomainError('conflict', 'An update or sync is already running');
    this.busy = true;
    try {
      return await work();
    } finally {
      this.busy = false;
    }
  }
}

function summary(file: VersionFile): VersionSummary {
  return { app_version: file.app_version, min_runtime: file.min_runtime, components: { runtime: { version: runtimeVersionOf(file), date: file.date }, ...file.components } };
}

/** A catalog's version in the clone: its own `version`, else what `version.json` says. */
async function catalogVersion(file: string, remote: VersionFile, name: string): Promise<number | string | undefined> {
  try {
    const { version } = JSON.parse(await fsp.readFile(file, 'utf8')) as { version?: number };
    return version ?? remote.components[name]?.version;
  } catch {
    return remote.components[name]?.version;
  }
}

function swapId(): string {
  return `${Date.now().toString(36)}-${crypto.randomBytes(3).toString('hex')}`;
}

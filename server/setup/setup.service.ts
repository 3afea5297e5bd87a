/**
 * The setup page's logic: what Studio found (GPUs, installs, free space), installing a release,
 * using a found install, updating beside the old version, rolling back, and the engine settings.
 * Every way to a new engine ends the same way: prove it on a port of its own, then switch.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.js';
import { readEngineChoice, writeEngineChoice, type EngineRef } from '../config/engine-choice.js';
import type { FoundInstall, InstallState, InstallStepName, KeptVersion, ReleaseList, SettingsBody, SetupReport } from '../contracts/setup.contract.js';
import { DomainError } from '../domain-error.js';
import type { EngineState } from '../engine/engine-process.js';
import { freeBytesOf } from '../free-space.js';
import { checkTorch, type GpuProbe } from '../gpu/index.js';
import type { Logger } from '../logging.js';
import { findExecutable } from '../process/find-executable.js';
import { installEngine, InstallError, removeUnfinished } from './engine-installer.js';
import { proveEngine } from './engine-prover.js';
import { storeRemoval, storeStandin, storeSwitch, type SwitchTarget } from './engine-switch.js';
import { engineVersionOf, isEngineDir } from './engine-version.js';
import { findInstalls } from './install-finder.js';
import { InstallJob, type JobDeps } from './install-job.js';
import { releaseList, releaseTags } from './release-tags.js';
import { chooseTorch } from './torch-builds.js';

const INSTALL_STEPS: InstallStepName[] = ['space', 'clone', 'environment', 'torch', 'requirements', 'check', 'prove', 'switch'];
const UPDATE_STEPS: InstallStepName[] = ['space', 'clone', 'environment', 'torch', 'requirements', 'nodes', 'check', 'prove', 'switch'];
const USE_STEPS: InstallStepName[] = ['check', 'prove', 'switch'];

export interface SetupDeps extends JobDeps {
  config: Readonly<Config>;
  logger: Logger;
  gpu: GpuProbe;
  engineState: () => EngineState;
  /** Restart Studio so the chosen engine takes over; false when this Studio cannot restart itself. */
  restartStudio: (reason: string) => boolean;
}

export class SetupService {
  private job: InstallJob | null = null;
  private running: Promise<void> = Promise.resolve();
  private found: Promise<FoundInstall[]> | null = null;

  constructor(private readonly deps: SetupDeps) {}

  private get studioDir(): string {
    return this.deps.config.paths.root;
  }

  /** Remove installs a crash left half-made. */
  async prepare(): Promise<void> {
    for (const dir of await removeUnfinished(this.deps.config.paths.engine)) this.deps.logger.warn(`setup: removed the unfinished engine install ${dir}`);
  }

  /** `GET /api/admin/setup`; `fresh` reads the GPUs and looks for installs again. */
  async report(fresh = false): Promise<SetupReport> {
    const { config } = this.deps;
    const gpu = await this.deps.gpu.read({ fresh });
    const torch = chooseTorch(gpu, process.platform, config.setup.torchIndexUrl);
    if (fresh || !this.found) this.found = this.findInstalls(gpu.backend);
    const installs = await this.found.catch((err: unknown) => {
      this.found = null;
      throw err;
    });
    const choice = readEngineChoice(this.studioDir);
    const state = this.deps.engineState();
    const by = chosenBy(config);
    await fsp.mkdir(config.paths.engine, { recursive: true });
    return {
      ...this.firstStart(),
      standin_kept: config.engine.mode === 'standin' && choice.standin_chosen,
      engine: {
        mode: config.engine.mode,
        mode_reason: config.engine.modeReason,
        status: state.status,
        dir: config.engine.dir,
        version: choice.current && by === 'setup' ? choice.current.version : null,
        chosen_by: by,
        // An engine that would not start (an unknown flag in the settings, say) in its own words.
        error_lines: state.status === 'crashed' ? state.stderrTail.filter((l) => l.trim()).slice(-6) : [],
      },
      gpu,
      torch,
      installs,
      disk: { dir: config.paths.engine, free_bytes: await freeBytesOf(config.paths.engine), needs_bytes: torch.needs_bytes },
      install: this.job?.state ?? null,
      previous: choice.previous.map(kept),
      settings: choice.settings,
      repository: config.setup.repoUrl,
      restart_needed: settingsDiffer(choice.settings, config),
    };
  }

  /** `GET /api/admin/setup/first-start`: whether the app should open the setup page (cheap: no GPU tool, no torch import). */
  firstStart(): { first_start: boolean } {
    const { config } = this.deps;
    const choice = readEngineChoice(this.studioDir);
    return { first_start: config.engine.mode === 'standin' && chosenBy(config) === 'default' && !choice.current && !choice.standin_chosen };
  }

  /** `GET /api/admin/setup/releases`. */
  async releases(): Promise<ReleaseList> {
    const { config } = this.deps;
    const tags = await releaseTags(config.setup.repoUrl, config.childEnv, config.setup.timeouts.cloneMs);
    const choice = readEngineChoice(this.studioDir);
    const current = choice.current?.version ?? (config.engine.dir ? await engineVersionOf(config.engine.dir, config.childEnv) : null);
    return releaseList(config.setup.repoUrl, tags, current);
  }

  /** `POST /api/admin/setup/engine`: install a release (the newest when none is named), prove it, switch. */
  async install(version: string | undefined): Promise<InstallState> {
    this.assertIdle();
    const tag = version ?? (await this.releases()).tags[0];
    if (!tag) throw new DomainError('upstream', `The repository ${this.deps.config.setup.repoUrl} has no release tags`);
    return this.startInstall('install', tag, null);
  }

  /** `POST /api/admin/setup/update`: a new version beside the old one, its node packages carried over. */
  async update(version: string): Promise<InstallState> {
    this.assertIdle();
    const current = this.deps.config.engine.dir;
    if (this.deps.config.engine.mode !== 'managed' || !current) throw new DomainError('conflict', 'Only an engine Studio runs itself (managed) can be updated here');
    return this.startInstall('update', version, current);
  }

  /** `POST /api/admin/setup/use`: a found install becomes the engine (managed after its proof, or external when it already runs). */
  async use(body: { dir: string; python?: string; mode: 'managed' | 'external'; add_models: boolean }): Promise<InstallState | { status: 'switched'; restart: boolean }> {
    this.assertIdle();
    const { config } = this.deps;
    if (body.mode === 'external') {
      const running = (await this.report()).installs.find((i) => i.running);
      if (!running) throw new DomainError('conflict', `No engine answers on port ${config.engine.port}: start it first, or use it managed`);
      return this.switchNow({ dir: running.dir, python: config.engine.python, version: running.version, origin: 'found', mode: 'external', extraModelDirs: [] }, 'the running engine');
    }
    const dir = path.resolve(body.dir);
    if (!(await isEngineDir(dir))) throw new DomainError('invalid', `${dir} is not an engine folder (no main.py and comfy/)`);
    // Found installs are listed by their real folder; the user may name it through a link.
    const real = await fsp.realpath(dir);
    const found = (await this.report()).installs.find((i) => i.dir === dir || i.dir === real);
    const python = body.python ? await findExecutable(body.python, config.childEnv) : (found?.python ?? null);
    if (!python) throw new DomainError('invalid', `No Python found for ${dir}: name the one that runs it`);
    const models = body.add_models ? (found?.models_dir ?? null) : null;
    const version = found?.version ?? (await engineVersionOf(dir, config.childEnv));
    const job = this.begin('use', version, USE_STEPS);
    this.running = this.run(job, async () => {
      job.step('check');
      const gpu = await this.deps.gpu.read();
      const torch = await checkTorch(python, gpu.backend, config.childEnv, { cwd: dir });
      if (!torch.works) throw new InstallError(`Its Python cannot run the engine here: ${torch.problem}`);
      job.line(`torch ${torch.torch} works`);
      return { dir, python, version, origin: 'found', mode: 'managed', extraModelDirs: models ? [models] : [] };
    });
    return job.state;
  }

  /** `POST /api/admin/setup/rollback`: the newest kept version becomes the engine again (it was proven when it was chosen). */
  rollback(): Promise<{ status: 'switched'; restart: boolean }> {
    this.assertIdle();
    // A kept version whose folder is gone cannot be switched back to.
    const ref = readEngineChoice(this.studioDir).previous.find((old) => fs.existsSync(old.dir));
    if (!ref) return Promise.reject(new DomainError('conflict', 'No earlier engine version is kept'));
    const external = /^https?:\/\//.test(ref.dir);
    return Promise.resolve(this.switchNow({ dir: ref.dir, python: ref.python, version: ref.version, origin: ref.origin, mode: external ? 'external' : 'managed', extraModelDirs: ref.extra_model_dirs }, 'the previous version'));
  }

  /** `POST /api/admin/setup/versions/remove`: forget a kept version, and delete it when Studio installed it. */
  async removeVersion(dir: string): Promise<{ removed: string }> {
    this.assertIdle();
    const ref = storeRemoval(this.studioDir, dir);
    if (!ref) throw new DomainError('not_found', `${dir} is not a kept engine version (the engine in use cannot be removed)`);
    const root = path.dirname(ref.dir);
    // Only a folder Studio made (STUDIO_DIR/engine/<version>/ComfyUI) is deleted; a found install stays on disk.
    if (ref.origin === 'installed' && path.dirname(root) === this.deps.config.paths.engine) await fsp.rm(root, { recursive: true, force: true });
    this.deps.events.emit('engine.version.removed', 'info', `Engine ${ref.version ?? ref.dir} removed`, { dir: ref.dir, deleted: ref.origin === 'installed' });
    this.found = null;
    return { removed: ref.dir };
  }

  /** `POST /api/admin/setup/standin`: keep the stand-in; the setup page no longer opens by itself. */
  keepStandin(): { status: 'standin' } {
    storeStandin(this.studioDir);
    return { status: 'standin' };
  }

  /** `DELETE /api/admin/setup/engine`: cancel the install running now. */
  cancel(): InstallState {
    if (!this.job || this.job.state.status !== 'running') throw new DomainError('conflict', 'No engine install is running');
    this.job.controller.abort();
    return this.job.state;
  }

  /** Studio stops: an install still running is cancelled, and its folder removed, before the engine stops. */
  async stop(): Promise<void> {
    if (this.job?.state.status === 'running') this.job.controller.abort();
    await this.running;
  }

  /** `PUT /api/admin/setup/settings`: stored; the engine runs them from its next restart. */
  settings(body: SettingsBody): SetupReport['settings'] & { restart_needed: boolean } {
    const choice = readEngineChoice(this.studioDir);
    const settings = { ...choice.settings, ...body };
    writeEngineChoice(this.studioDir, { ...choice, settings });
    this.deps.events.emit('engine.settings.updated', 'info', 'Engine settings changed; they apply at the next engine restart', { changed: Object.keys(body) });
    return { ...settings, restart_needed: settingsDiffer(settings, this.deps.config) };
  }

  private startInstall(kind: 'install' | 'update', version: string, carryFrom: string | null): InstallState {
    const { config } = this.deps;
    const job = this.begin(kind, version, kind === 'update' ? UPDATE_STEPS : INSTALL_STEPS);
    this.running = this.run(job, async () => {
      const gpu = await this.deps.gpu.read();
      const torch = chooseTorch(gpu, process.platform, config.setup.torchIndexUrl);
      const uv = await findExecutable('uv', config.childEnv);
      const installed = await installEngine(
        { version, repoUrl: config.setup.repoUrl, target: path.join(config.paths.engine, version), torch, packageIndexUrl: config.setup.packageIndexUrl, basePython: config.setup.basePython, uv, carryNodesFrom: carryFrom, timeouts: config.setup.timeouts },
        job.hooks,
      );
      return { dir: installed.dir, python: installed.python, version, origin: 'installed', mode: 'managed', extraModelDirs: [], removeOnFailure: path.dirname(installed.dir) };
    });
    return job.state;
  }

  private begin(kind: InstallState['kind'], version: string | null, steps: InstallStepName[]): InstallJob {
    this.job = new InstallJob(this.deps, kind, version, steps);
    return this.job;
  }

  /** Make the candidate, prove it, switch; a failure leaves the engine in use untouched (and removes what was installed). */
  private async run(job: InstallJob, make: () => Promise<SwitchTarget & { removeOnFailure?: string }>): Promise<void> {
    let made: (SwitchTarget & { removeOnFailure?: string }) | null = null;
    try {
      made = await make();
      job.step('prove');
      await proveEngine(made, { ...this.deps, signal: job.controller.signal, line: (l) => job.line(l) });
      this.deps.events.emit('engine.proved', 'success', `Engine ${made.version ?? made.dir} started and ran the smoke prompt`, { dir: made.dir, version: made.version });
      job.step('switch');
      const restart = this.switchTo(made);
      job.line(restart ? 'Studio restarts now to run it' : 'Restart Studio to run it');
      job.finish(`Studio's engine is now ${made.version ?? made.dir}${restart ? '; Studio restarts to run it' : '; restart Studio to run it'}`, { dir: made.dir, version: made.version, origin: made.origin, restart });
    } catch (err) {
      if (made?.removeOnFailure) await fsp.rm(made.removeOnFailure, { recursive: true, force: true });
      job.fail(err);
      if (!(err instanceof InstallError) && !(err instanceof DomainError)) this.deps.logger.error('engine install failed unexpectedly', err);
    } finally {
      this.found = null;
    }
  }

  private switchNow(target: SwitchTarget, what: string): { status: 'switched'; restart: boolean } {
    const restart = this.switchTo(target);
    this.deps.events.emit('engine.switched', 'success', `Studio's engine is now ${what} (${target.version ?? target.dir})${restart ? '; Studio restarts to run it' : '; restart Studio to run it'}`, { dir: target.dir, version: target.version, origin: target.origin, mode: target.mode, restart });
    return { status: 'switched', restart };
  }

  private switchTo(target: SwitchTarget): boolean {
    const { config } = this.deps;
    const running = config.engine.mode === 'managed' ? { dir: config.engine.dir, python: config.engine.python, version: null } : null;
    storeSwitch(this.studioDir, target, running);
    this.found = null;
    return this.deps.restartStudio(`the engine is now ${target.version ?? target.dir}`);
  }

  private assertIdle(): void {
    if (this.job?.state.status === 'running') throw new DomainError('conflict', 'An engine install is already running; wait for it or cancel it');
  }

  private findInstalls(backend: Awaited<ReturnType<GpuProbe['read']>>['backend']): Promise<FoundInstall[]> {
    const { config } = this.deps;
    const managed = config.engine.mode === 'managed';
    return findInstalls({
      home: config.setup.home,
      platform: process.platform,
      appData: config.setup.appData,
      configured: config.engine.dir ? { dir: config.engine.dir, python: config.engine.python, label: config.engine.modeReason.startsWith('chosen') ? 'setup' : 'ENGINE_DIR' } : null,
      inUseDir: managed ? config.engine.dir : null,
      // Only an engine Studio did not start may answer there (the stand-in and a managed engine are Studio's own).
      portUrl: config.engine.mode === 'external' ? `http://127.0.0.1:${config.engine.port}` : null,
      studioEngines: config.paths.engine,
      backend,
      env: config.childEnv,
    });
  }
}

/** Who named the engine in use: the setup page's stored choice, the environment, or nobody (the default). */
function chosenBy(config: Readonly<Config>): SetupReport['engine']['chosen_by'] {
  if (config.engine.modeReason.startsWith('chosen on the setup page')) return 'setup';
  return /^(no engine configured|an engine already answers)/.test(config.engine.modeReason) ? 'default' : 'environment';
}

function kept(ref: EngineRef): KeptVersion {
  return { dir: ref.dir, python: ref.python, version: ref.version, origin: ref.origin, chosen_at: ref.chosen_at };
}

/** The stored settings differ from what this run of Studio started the engine with. */
function settingsDiffer(settings: SetupReport['settings'], config: Readonly<Config>): boolean {
  return (
    (settings.extra_args !== null && settings.extra_args.join('\u0000') !== config.engine.extraArgs.join('\u0000')) ||
    (settings.preview_method !== null && settings.preview_method !== config.engine.previewMethod) ||
    (settings.port !== null && settings.port !== config.engine.port)
  );
}

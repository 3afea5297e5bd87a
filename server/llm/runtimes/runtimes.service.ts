/**
 * The llama.cpp runtimes (README "LLM runtimes"): what is installed and active, what the release
 * source offers for this machine (with the variant Studio recommends and why), install, switch,
 * rollback, remove, and a build from source with the project's script. Nothing updates by itself:
 * the list only says when a newer release exists. `LLM_BINARY`, when set, wins over all of it.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { DomainError, notFound } from '../../domain-error.js';
import type { EventBus } from '../../events/event-bus.js';
import type { Logger } from '../../logging.js';
import { isRemovableWithin } from '../../http/contained-path.js';
import type { RuntimeJob, RuntimesView } from '../../contracts/llm-runtimes.contract.js';
import { buildsOf, type RuntimeBuild } from './release-assets.js';
import type { Release, ReleaseSourceClient } from './release-source.client.js';
import { installBuild, type PendingArchive, type RuntimeDownloads } from './runtime-install.js';
import { RuntimeStore, type InstalledBuild } from './runtime.store.js';
import { buildEstimate } from './build-estimate.js';
import { BuildCancelled, buildFromSource, sourceBuildTools } from './source-build.js';
import { chooseVariant, platformOf, type MachineFacts } from './variant-choice.js';

/** How many builds are kept (the active one and the rollback target are never removed). */
const KEEP_BUILDS = 3;
const RELEASES_TTL_MS = 10 * 60_000;

/** What the runtimes need of the GPU probe. */
export type GpuFacts = Pick<MachineFacts, 'gpuVendor' | 'cudaVersion' | 'rocmVersion'>;

export interface RuntimesDeps {
  runtimesDir: string;
  releases: ReleaseSourceClient;
  downloads: RuntimeDownloads;
  gpu: () => Promise<GpuFacts>;
  env: NodeJS.ProcessEnv;
  events: EventBus;
  logger: Logger;
  /** `LLM_BINARY` when set: it wins over the installed builds. */
  override: string | null;
  maxUnpackBytes: number;
  /** The build-from-source script and its cache folder. */
  sourceBuild: { script: string; cacheDir: string };
  /** The active build changed (the LLM server restarts on it when running). */
  onActiveChanged: () => Promise<void>;
  smokeTimeoutMs?: number;
}

export class RuntimesService {
  readonly store: RuntimeStore;
  private readonly pending = new Map<string, PendingArchive>();
  private job: RuntimeJob | null = null;
  private cached: { at: number; release: Release | null; error: string | null } | null = null;
  private tools: { at: number; result: { ok: boolean; reason: string } } | null = null;
  /** Aborts the build from source in progress (Cancel). */
  private buildAbort: AbortController | null = null;
  private buildDone: Promise<void> | null = null;

  constructor(private readonly deps: RuntimesDeps) {
    this.store = new RuntimeStore(path.join(deps.runtimesDir, 'runtimes.json'));
  }

  /** The binary the LLM server runs: `LLM_BINARY`, else the active build, else `llama-server` on PATH. */
  binary(): string {
    return this.deps.override ?? this.store.active()?.binary ?? 'llama-server';
  }

  /** The queue's resolver asks here first: an archive of a running install, or null. */
  pendingArchive(file: string): PendingArchive | null {
    return this.pending.get(file) ?? null;
  }

  /** `GET /api/admin/llm/runtimes`. */
  async view(refresh = false): Promise<RuntimesView> {
    const machine = await this.machine();
    const { release, error } = await this.latest(refresh);
    const builds = release ? buildsOf(release.assets) : [];
    const choice = machine ? chooseVariant(builds, machine) : { build: null, reason: `No llama.cpp build is published for ${process.platform} ${process.arch}` };
    const installed = this.store.builds();
    const newest = installed.filter((b) => b.origin !== 'source').map((b) => tagNumber(b.tag)).sort((a, b) => b - a)[0] ?? null;
    const tools = await this.buildTools();
    return {
      override: this.deps.override,
      binary: this.binary(),
      active: this.store.active()?.id ?? null,
      previous: this.store.previousId,
      installed: installed.map((b) => ({ ...b, path: b.binary, active: b.id === this.store.activeId })),
      machine: machine ? { os: machine.os, arch: machine.arch, gpu_vendor: machine.gpuVendor, cuda_version: machine.cudaVersion, rocm_version: machine.rocmVersion } : null,
      available: release
        ? {
            tag: release.tag,
            published_at: release.publishedAt,
            builds: builds.map((b) => ({ asset: b.asset.name, variant: b.variant, backend: b.backend, os: b.os, arch: b.arch, size: b.asset.size + (b.companion?.size ?? 0), digest: b.asset.digest, for_this_machine: machine !== null && b.os === machine.os && b.arch === machine.arch })),
            recommended: choice.build ? { asset: choice.build.asset.name, variant: choice.build.variant } : null,
            reason: choice.reason,
          }
        : null,
      available_error: error,
      update_available: release !== null && choice.build !== null && (newest === null || tagNumber(release.tag) > newest) && !installed.some((b) => b.tag === release.tag),
      source_build: {
        possible: tools.ok,
        reason: tools.ok ? sourceBuildReason(choice.build !== null, release !== null, error) : tools.reason,
        estimate: tools.ok ? await buildEstimate(this.deps.sourceBuild.cacheDir) : null,
      },
      job: this.job,
    };
  }

  /** Start installing `asset` (default: the recommended build of the newest release). */
  async install(asset: string | undefined, activate: boolean): Promise<RuntimeJob> {
    this.refuseWhileBusy();
    const { release, error } = await this.latest(false);
    if (!release) throw new DomainError('unreachable', error ?? 'The release source lists no release');
    const builds = buildsOf(release.assets);
    const machine = await this.machine();
    let build: RuntimeBuild | null;
    let reason: string | null;
    if (asset) {
      build = builds.find((b) => b.asset.name === asset) ?? null;
      if (!build) throw notFound(`${asset} is not a llama.cpp build of release ${release.tag}`);
      reason = 'chosen by hand';
    } else {
      const choice = machine ? chooseVariant(builds, machine) : null;
      build = choice?.build ?? null;
      reason = choice?.reason ?? null;
      if (!build) throw new DomainError('conflict', `${reason ?? 'No prebuilt build fits this machine'}: build from source instead`);
    }
    const id = `${release.tag}-${build.variant}`;
    if (this.store.get(id)) throw new DomainError('conflict', `${id} is installed already`);
    const job: RuntimeJob = (this.job = { id, kind: 'install', asset: build.asset.name, variant: build.variant, phase: 'downloading', bytes: 0, total: 0, error: null, log: [] });
    const deps = { ...this.deps, pending: this.pending };
    void installBuild(deps, release.tag, build, job, reason).then(
      (record) => this.installed(record, job, activate),
      (err: unknown) => this.refused(job, err),
    );
    return job;
  }

  /** Build llama-server from source with the project's script (minutes), then install it like a download. */
  async build(activate: boolean): Promise<RuntimeJob> {
    this.refuseWhileBusy();
    const tools = await this.buildTools();
    if (!tools.ok) throw new DomainError('conflict', tools.reason);
    const job: RuntimeJob = (this.job = { id: 'source', kind: 'build', asset: null, variant: 'cpu', phase: 'building', step: null, bytes: 0, total: 0, error: null, log: [] });
    const abort = (this.buildAbort = new AbortController());
    this.buildDone = buildFromSource({ ...this.deps.sourceBuild, env: this.deps.env, runtimesDir: this.deps.runtimesDir, smokeTimeoutMs: this.deps.smokeTimeoutMs, signal: abort.signal }, job)
      .then(
        (record) => this.installed(record, job, activate),
        (err: unknown) => (err instanceof BuildCancelled ? this.cancelled(job) : this.refused(job, err)),
      )
      .finally(() => {
        if (this.buildAbort === abort) this.buildAbort = null;
      });
    return job;
  }

  /** Cancel the build from source in progress: its whole process tree ends, its folder is removed. */
  async cancelBuild(): Promise<RuntimeJob> {
    const job = this.job;
    if (!job || job.kind !== 'build' || job.phase !== 'building' || !this.buildAbort) throw new DomainError('conflict', 'No build from source is running');
    this.buildAbort.abort();
    // Answer once the group is dead and the folder removed: the page then says "Cancelled".
    await this.buildDone;
    return job;
  }

  /** Switch to an installed build (also the rollback: the build active before is `previous`). */
  async activate(id: string): Promise<{ status: 'activated'; active: string; previous: string | null }> {
    const build = this.store.get(id);
    if (!build) throw notFound(`No installed llama.cpp build ${id}`);
    await this.store.activate(id);
    this.deps.events.emit('llm.runtime.activated', 'info', `llama.cpp ${build.variant} build ${build.tag} is now the active runtime`, { id });
    await this.deps.onActiveChanged();
    return { status: 'activated', active: id, previous: this.store.previousId };
  }

  /** Go back to the build that was active before the current one. */
  async rollback(): Promise<{ status: 'activated'; active: string; previous: string | null }> {
    const previous = this.store.previousId;
    if (!previous || !this.store.get(previous)) throw new DomainError('conflict', 'There is no earlier build to roll back to');
    return this.activate(previous);
  }

  /** Remove an installed build that is not active. */
  async remove(id: string): Promise<{ status: 'removed'; id: string }> {
    const build = this.store.get(id);
    if (!build) throw notFound(`No installed llama.cpp build ${id}`);
    if (this.store.activeId === id) throw new DomainError('conflict', 'The active build cannot be removed: switch to another first');
    await this.store.remove(id);
    await this.removeFolder(build);
    return { status: 'removed', id };
  }

  private refuseWhileBusy(): void {
    if (this.job && !['installed', 'failed', 'cancelled'].includes(this.job.phase)) throw new DomainError('conflict', `An install is already running (${this.job.id}, ${this.job.phase})`);
  }

  private async installed(record: InstalledBuild, job: RuntimeJob, activate: boolean): Promise<void> {
    await this.store.add(record);
    this.deps.events.emit('llm.runtime.installed', 'success', `llama.cpp ${record.variant} build ${record.tag} installed (${record.version ?? 'version unknown'})`, { id: record.id, gpu_layers: record.gpu_layers });
    if (activate || !this.store.active()) await this.activate(record.id).catch((err: unknown) => this.deps.logger.error('activating the new LLM runtime failed', err));
    await this.prune();
    // Finished only once it is active and a running server moved onto it.
    job.phase = 'installed';
  }

  private cancelled(job: RuntimeJob): void {
    job.phase = 'cancelled';
    job.error = null;
    this.deps.events.emit('llm.runtime.refused', 'info', 'The build of llama-server from source was cancelled', { id: job.id, error: 'Cancelled', log: job.log.slice(-10) });
  }

  private refused(job: RuntimeJob, err: unknown): void {
    job.phase = 'failed';
    job.error = (err as Error).message;
    this.deps.events.emit('llm.runtime.refused', 'error', `llama.cpp build ${job.id} was not installed: ${job.error}`, { id: job.id, error: job.error, log: job.log.slice(-10) });
  }

  /** Keep the newest KEEP_BUILDS builds; never the active one or the rollback target. */
  private async prune(): Promise<void> {
    const keep = new Set([this.store.activeId, this.store.previousId].filter((id): id is string => id !== null));
    const newestFirst = this.store.builds().sort((a, b) => b.installed_at.localeCompare(a.installed_at));
    for (const b of newestFirst) if (keep.size < KEEP_BUILDS) keep.add(b.id);
    for (const b of newestFirst) {
      if (keep.has(b.id)) continue;
      await this.store.remove(b.id);
      await this.removeFolder(b);
    }
  }

  /** Delete a build's folder, only ever inside the runtimes folder (a source build may live elsewhere). */
  private async removeFolder(build: InstalledBuild): Promise<void> {
    if (isRemovableWithin(this.deps.runtimesDir, build.dir)) await fsp.rm(build.dir, { recursive: true, force: true });
  }

  /** The build tools, checked at most once a minute (the page polls). */
  private async buildTools(): Promise<{ ok: boolean; reason: string }> {
    if (!this.tools || Date.now() - this.tools.at > 60_000) this.tools = { at: Date.now(), result: await sourceBuildTools(this.deps.env) };
    return this.tools.result;
  }

  private async machine(): Promise<MachineFacts | null> {
    const where = platformOf(process.platform, process.arch);
    if (!where) return null;
    const gpu = await this.deps.gpu().catch((): GpuFacts => ({ gpuVendor: null, cudaVersion: null, rocmVersion: null }));
    return { ...where, ...gpu, gpuVendor: where.os === 'macos' && where.arch === 'arm64' ? 'apple' : gpu.gpuVendor };
  }

  /** The newest release with builds (cached ten minutes: the public API allows 60 calls an hour). */
  private async latest(refresh: boolean): Promise<{ release: Release | null; error: string | null }> {
    if (!refresh && this.cached && Date.now() - this.cached.at < RELEASES_TTL_MS) return this.cached;
    try {
      const releases = await this.deps.releases.releases();
      this.cached = { at: Date.now(), release: releases.find((r) => buildsOf(r.assets).length > 0) ?? null, error: null };
    } catch (err) {
      // A failure is asked again after half a minute, not after the full ten.
      this.cached = { at: Date.now() - RELEASES_TTL_MS + 30_000, release: null, error: (err as Error).message };
    }
    return this.cached;
  }
}

/** Why building from source is offered: never "no prebuilt build fits" when the release source did not answer. */
function sourceBuildReason(fits: boolean, answered: boolean, error: string | null): string {
  if (fits) return 'A prebuilt build fits this machine; building from source is optional';
  if (error) return 'The release source did not answer: you can build from source instead';
  if (!answered) return 'The release source lists no llama.cpp release: you can build from source instead';
  return 'No prebuilt build fits this machine: build from source';
}

/** The build number of a `b1234` tag (other tags count as 0). */
function tagNumber(tag: string): number {
  const m = /^b(\d+)$/.exec(tag);
  return m ? Number(m[1]) : 0;
}

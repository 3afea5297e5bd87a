/**
 * The LLM capability as `studio.ts` builds it: the supervised llama-server with its stored
 * configuration, and its routes (status, start/stop, config, models, chat proxy). Under
 * `LLM_GPU_POLICY=yield` it follows the image jobs: parked while any is active.
 */
import path from 'node:path';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { EventBus } from '../events/event-bus.js';
import type { Logger } from '../logging.js';
import type { StudioModule } from '../module.js';
import { APP_ROOT } from '../config.js';
import type { GpuProbe, GpuReport } from '../gpu/index.js';
import { ChatStore } from './chats/chat.store.js';
import type { LlmCatalog } from './llm-catalog.js';
import { FitService } from './fit/fit.service.js';
import { RepoFilesClient } from './repo/repo-files.client.js';
import { RepoGgufService } from './repo/repo-gguf.service.js';
import { chatsRoutes } from './chats/chats.routes.js';
import { LlmConfigStore } from './llm-config.store.js';
import { llmRoutes } from './llm.routes.js';
import { LlmService } from './llm.service.js';
import { ReleaseSourceClient } from './runtimes/release-source.client.js';
import type { RuntimeDownloads } from './runtimes/runtime-install.js';
import { RuntimesService, type GpuFacts } from './runtimes/runtimes.service.js';

/** What the GPU policy reads of the image jobs (the job lifecycle). */
export interface ImageJobs {
  /** Runs on every job change; returns the unsubscriber. */
  subscribe(listener: () => void): () => void;
  activeCount(): number;
}

export interface LlmModuleDeps {
  config: Readonly<Config>;
  db: Db;
  events: EventBus;
  logger: Logger;
  gpu: GpuProbe;
  imageJobs: ImageJobs;
  /** Studio's download queue (the runtimes' archives go through it). */
  downloads: RuntimeDownloads;
  /** The LLM catalog (fit estimates; GGUF files added from a repository). */
  llmCatalog: LlmCatalog;
  /** The repository host token (gated repositories), read per request. */
  hubToken: () => string | null;
}

/** The runtimes' view of the probe: the GPU that decides the build (an NVIDIA one first). */
function gpuFacts(report: GpuReport): GpuFacts {
  const vendors = report.gpus.map((g) => g.vendor);
  const gpuVendor = (['nvidia', 'amd', 'intel', 'apple'] as const).find((v) => vendors.includes(v)) ?? null;
  return { gpuVendor, cudaVersion: report.cuda_version, rocmVersion: report.rocm_version?.split('.').slice(0, 2).join('.') ?? null };
}

export interface LlmModule extends StudioModule {
  service: LlmService;
  /** A runtime archive the download queue is fetching: where it comes from, or null when not one. */
  runtimeDownload(file: string): { url: string; headers: Record<string, string>; source: 'repohost'; tokenName: string; finalFile: string; expectedSha256: string; estimatedBytes: number } | null;
}

/** Build the LLM service (nothing starts until asked) and its routes. */
export function createLlmModule(deps: LlmModuleDeps): LlmModule {
  const { config, events, logger } = deps;
  const readGpu = () => deps.gpu.read();
  const runtimes = new RuntimesService({
    runtimesDir: path.join(config.paths.llm, 'runtimes'),
    releases: new ReleaseSourceClient(config.llm.releasesUrl),
    downloads: deps.downloads,
    gpu: async () => gpuFacts(await readGpu()),
    env: config.childEnv,
    events,
    logger,
    override: config.llm.binary,
    maxUnpackBytes: config.llm.maxUnpackBytes,
    sourceBuild: { script: path.join(APP_ROOT, 'scripts', 'build-llama-server.mjs'), cacheDir: config.llm.sourceBuildDir ?? path.join(config.paths.llm, 'runtimes', 'source') },
    // With LLM_BINARY set the running server does not use the installed builds: nothing to restart.
    onActiveChanged: () => (config.llm.binary ? Promise.resolve() : service.runtimeChanged()),
  });
  const store = new LlmConfigStore(config.paths.llmConfig);
  const fit = new FitService({
    modelsDir: config.paths.llmModels,
    binary: () => runtimes.binary(),
    binaryExists: () => service.binaryExists(),
    env: config.childEnv,
    gpu: readGpu,
    catalog: () => deps.llmCatalog.entries(),
    ctxSize: () => store.get().ctx_size,
  });
  const repos = new RepoGgufService({
    client: new RepoFilesClient(config.urls.repohost, deps.hubToken),
    catalog: deps.llmCatalog,
    estimate: (bytes) => fit.estimateBytes(bytes),
  });
  const service: LlmService = new LlmService({
    server: {
      binary: () => runtimes.binary(),
      port: config.llm.port,
      modelsDir: config.paths.llmModels,
      env: config.childEnv,
      readyTimeoutMs: config.llm.readyTimeoutMs,
      logFile: path.join(config.paths.logs, 'llm.log'),
      logger,
    },
    store,
    autoLayers: (model, ctxSize) => fit.autoLayers(model, ctxSize),
    events,
    logger,
    idleMinutes: config.llm.idleMinutes,
    gpuPolicy: config.llm.gpuPolicy,
  });
  let unfollow: (() => void) | null = null;
  return {
    name: 'llm',
    routers: [llmRoutes(service, runtimes, fit, repos), chatsRoutes(new ChatStore(deps.db))],
    service,
    runtimeDownload(file) {
      const archive = runtimes.pendingArchive(file);
      if (!archive) return null;
      return { url: archive.url, headers: {}, source: 'repohost', tokenName: 'LLM_RELEASES_URL', finalFile: archive.finalFile, expectedSha256: archive.sha256, estimatedBytes: archive.size };
    },
    start() {
      // Park the LLM server while image jobs hold the GPU; bring it back when none is left.
      if (config.llm.gpuPolicy === 'yield') unfollow = deps.imageJobs.subscribe(() => void service.engineQueue(deps.imageJobs.activeCount() > 0));
    },
    stopDeadlineMs: 6_000,
    async stop() {
      unfollow?.();
      await service.close();
    },
  };
}

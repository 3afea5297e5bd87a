/**
 * The LLM capability as `studio.ts` builds it: the supervised llama-server with its stored
 * configuration, and its routes (status, start/stop, config, models, chat proxy). Under
 * `LLM_GPU_POLICY=yield` it follows the image jobs: parked while any is active.
 */
import path from 'node:path';
import type { Config } from '../config.js';
import type { EventBus } from '../events/event-bus.js';
import type { Logger } from '../logging.js';
import type { StudioModule } from '../module.js';
import { LlmConfigStore } from './llm-config.store.js';
import { llmRoutes } from './llm.routes.js';
import { LlmService } from './llm.service.js';

/** What the GPU policy reads of the image jobs (the job lifecycle). */
export interface ImageJobs {
  /** Runs on every job change; returns the unsubscriber. */
  subscribe(listener: () => void): () => void;
  activeCount(): number;
}

export interface LlmModuleDeps {
  config: Readonly<Config>;
  events: EventBus;
  logger: Logger;
  imageJobs: ImageJobs;
}

export interface LlmModule extends StudioModule {
  service: LlmService;
}

/** Build the LLM service (nothing starts until asked) and its routes. */
export function createLlmModule(deps: LlmModuleDeps): LlmModule {
  const { config, events, logger } = deps;
  const service = new LlmService({
    server: {
      binary: config.llm.binary,
      port: config.llm.port,
      modelsDir: config.paths.llmModels,
      env: config.childEnv,
      readyTimeoutMs: config.llm.readyTimeoutMs,
      logFile: path.join(config.paths.logs, 'llm.log'),
      logger,
    },
    store: new LlmConfigStore(config.paths.llmConfig),
    events,
    logger,
    idleMinutes: config.llm.idleMinutes,
    gpuPolicy: config.llm.gpuPolicy,
  });
  let unfollow: (() => void) | null = null;
  return {
    name: 'llm',
    routers: [llmRoutes(service)],
    service,
    start() {
      // Park the LLM server while image jobs hold the GPU; bring it back when none is left.
      if (config.llm.gpuPolicy === 'yield') unfollow = deps.imageJobs.subscribe(() => service.engineQueue(deps.imageJobs.activeCount() > 0));
    },
    stopDeadlineMs: 6_000,
    async stop() {
      unfollow?.();
      await service.close();
    },
  };
}

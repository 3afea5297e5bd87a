/**
 * The LLM capability as `studio.ts` builds it: the supervised llama-server with its stored
 * configuration, and its routes (status, start/stop, config, models, chat proxy).
 */
import path from 'node:path';
import type express from 'express';
import type { Config } from '../config.js';
import type { EventBus } from '../events/event-bus.js';
import type { Logger } from '../logging.js';
import { LlmConfigStore } from './llm-config.store.js';
import { llmRoutes } from './llm.routes.js';
import { LlmService } from './llm.service.js';

/** Build the LLM service (nothing starts until asked) and its routes. */
export function createLlmModule(deps: { config: Readonly<Config>; events: EventBus; logger: Logger }): { service: LlmService; routers: express.Router[] } {
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
  return { service, routers: [llmRoutes(service)] };
}

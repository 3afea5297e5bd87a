/**
 * The setup capability as `studio.ts` builds it: the setup page's report (GPUs, engine installs,
 * free space), installing and updating engines, switching between them, and engine settings.
 * It uses the engine capability's supervisor to prove a new engine, the GPU probe to choose its
 * torch, and the node installs' rule for the packages held as installed.
 */
import type { Config } from '../config.js';
import type { EngineModule } from '../engine/engine.module.js';
import type { EventBus } from '../events/event-bus.js';
import type { GpuProbe } from '../gpu/index.js';
import type { WsHub } from '../http/ws-hub.js';
import type { Logger } from '../logging.js';
import type { StudioModule } from '../module.js';
import { setupRoutes } from './setup.routes.js';
import { SetupService } from './setup.service.js';

export interface SetupModuleDeps {
  config: Readonly<Config>;
  events: EventBus;
  hub: WsHub;
  logger: Logger;
  gpu: GpuProbe;
  engine: Pick<EngineModule, 'process'>;
  /** Restart Studio (false when it cannot restart itself). */
  restartStudio: (reason: string) => boolean;
}

export function createSetupModule(deps: SetupModuleDeps): StudioModule {
  const service = new SetupService({
    config: deps.config,
    logger: deps.logger,
    events: deps.events,
    hub: deps.hub,
    env: deps.config.childEnv,
    gpu: deps.gpu,
    engineState: () => deps.engine.process.state,
    restartStudio: deps.restartStudio,
  });
  return {
    name: 'setup',
    routers: [setupRoutes(service)],
    prepare: () => service.prepare(),
    stop: () => service.stop(),
    // A cancelled step's process group is killed at once; removing the half-made folder is quick.
    stopDeadlineMs: 10_000,
  };
}

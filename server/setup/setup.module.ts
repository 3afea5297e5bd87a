/**
 * The setup capability as `studio.ts` builds it: the setup page's report (GPUs, engine installs,
 * free space), installing and updating engines, switching between them, and engine settings.
 * It uses the engine capability's supervisor to prove a new engine, the GPU probe to choose its
 * torch, and the node installs' rule for the packages held as installed.
 */
import type { EngineModule } from '../engine/engine.module.js';
import type { StudioModule } from '../module.js';
import { setupRoutes } from './setup.routes.js';
import { SetupService, type SetupDeps } from './setup.service.js';

export function createSetupModule(deps: Omit<SetupDeps, 'env' | 'engineState'> & { engine: Pick<EngineModule, 'process'> }): StudioModule {
  const service = new SetupService({ ...deps, env: deps.config.childEnv, engineState: () => deps.engine.process.state });
  return {
    name: 'setup',
    routers: [setupRoutes(service)],
    prepare: () => service.prepare(),
    stop: () => service.stop(),
    // A cancelled step's process group is killed at once; removing the half-made folder is quick.
    stopDeadlineMs: 10_000,
  };
}

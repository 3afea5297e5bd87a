/**
 * Wiring of the presets capability behind one factory for the composition root.
 */
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Uploads } from '../http/uploads.js';
import type { RunnerService } from '../jobs/runner.service.js';
import type { StudioModule } from '../module.js';
import type { WorkflowService } from '../workflows/workflow.service.js';
import { PresetRunService } from './preset-run.service.js';
import { PresetStore } from './preset.store.js';
import { presetsRoutes } from './presets.routes.js';
import { PresetsService, type PresetsServiceDeps } from './presets.service.js';
import { SavedPromptsMirror } from './saved-prompts.store.js';

export interface PresetsModuleDeps extends Pick<PresetsServiceDeps, 'jobs' | 'logger' | 'allowedWorkflows'> {
  config: Readonly<Config>;
  db: Db;
  runner: RunnerService;
  workflows: WorkflowService;
  uploads: Uploads;
}

export interface PresetsModule extends StudioModule {
  /** CRUD and `createPreset(preset)` (the model hub makes presets from hub images with it). */
  service: PresetsService;
  runs: PresetRunService;
  /** Rebuild the `saved_prompts` mirror from the preset folder. */
  prepare(): Promise<void>;
}

export function createPresetsModule(deps: PresetsModuleDeps): PresetsModule {
  const service = new PresetsService({
    ...deps,
    store: new PresetStore(deps.config.paths.presets),
    mirror: new SavedPromptsMirror(deps.db),
    modelhubBaseUrl: deps.config.urls.modelhub,
  });
  const runs = new PresetRunService({ presets: service, runner: deps.runner, workflows: deps.workflows });
  return {
    name: 'presets',
    routers: [presetsRoutes(service, runs, deps.uploads)],
    service,
    runs,
    prepare: () =>
      service.rebuildMirror().catch((err: unknown) => deps.logger.error('the saved_prompts mirror could not be rebuilt from the presets folder', err)),
  };
}

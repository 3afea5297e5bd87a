/**
 * Wiring of the presets capability behind one factory for the composition root.
 */
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Uploads } from '../http/uploads.js';
import type { JobStore } from '../jobs/job.store.js';
import type { RunnerService } from '../jobs/runner.service.js';
import type { Logger } from '../logging.js';
import type { StudioModule } from '../module.js';
import type { WorkflowService } from '../workflows/workflow.service.js';
import { PresetRunService } from './preset-run.service.js';
import { PresetStore } from './preset.store.js';
import { presetsRoutes } from './presets.routes.js';
import { PresetsService } from './presets.service.js';
import { SavedPromptsMirror } from './saved-prompts.store.js';

export interface PresetsModuleDeps {
  config: Readonly<Config>;
  db: Db;
  jobs: JobStore;
  runner: RunnerService;
  workflows: WorkflowService;
  uploads: Uploads;
  logger: Logger;
  /** The workflows a person may run (their allow-list); null: any. */
  allowedWorkflows?: (userId: string) => readonly string[] | null;
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
    store: new PresetStore(deps.config.paths.presets),
    mirror: new SavedPromptsMirror(deps.db),
    jobs: deps.jobs,
    workflows: deps.workflows,
    modelhubBaseUrl: deps.config.urls.modelhub,
    logger: deps.logger,
    allowedWorkflows: deps.allowedWorkflows,
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

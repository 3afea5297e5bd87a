/**
 * The batches capability (issue 45) as `studio.ts` builds it: the store, the service (which binds
 * itself to the queue's batch lane as its gate) and the routes. It runs every cell through the
 * jobs capability's runner, so a batch job is checked and recorded like any other.
 */
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { EventBus } from '../events/event-bus.js';
import type { WsHub } from '../http/ws-hub.js';
import type { JobsModule } from '../jobs/jobs.module.js';
import type { Logger } from '../logging.js';
import type { StudioModule } from '../module.js';
import type { PresetsService } from '../presets/presets.service.js';
import type { WorkflowService } from '../workflows/workflow.service.js';
import { BatchStore } from './batch.store.js';
import { batchesRoutes } from './batches.routes.js';
import { BatchesService } from './batches.service.js';

export interface BatchesModuleDeps {
  config: Readonly<Config>;
  db: Db;
  events: EventBus;
  hub: WsHub;
  logger: Logger;
  jobs: Pick<JobsModule, 'runner' | 'queue' | 'lifecycle' | 'queries'>;
  workflows: Pick<WorkflowService, 'definition'>;
  presets: Pick<PresetsService, 'get'>;
  /** The clock a window is read by (tests move it). */
  now?: () => number;
}

export interface BatchesModule extends StudioModule {
  service: BatchesService;
}

export function createBatchesModule(deps: BatchesModuleDeps): BatchesModule {
  const { jobs } = deps;
  const outputsDir = deps.config.paths.assetsOutput;
  const service = new BatchesService({
    store: new BatchStore(deps.db),
    runner: jobs.runner,
    workflows: deps.workflows,
    presets: deps.presets,
    lifecycle: jobs.lifecycle,
    queue: jobs.queue,
    queries: jobs.queries,
    outputsDir,
    hub: deps.hub,
    events: deps.events,
    logger: deps.logger,
    maxCells: deps.config.jobs.batchMaxCells,
    resumesStalled: deps.config.jobs.resumeAfterRestart,
    now: deps.now,
  });
  jobs.queue.lane.bind(service);
  return {
    name: 'batches',
    routers: [batchesRoutes(service, outputsDir)],
    service,
    prepare: async () => service.watch(),
    stop: () => service.stop(),
  };
}

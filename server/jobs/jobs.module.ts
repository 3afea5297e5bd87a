/**
 * The jobs capability as `studio.ts` builds it, around the job lifecycle (the one writer of job
 * status, whose changes go to the event log and the WebSocket clients): the runner (execute,
 * retry), Studio's queue (`queue/`: waiting jobs handed to the engine), the engine watcher, queue
 * and history queries, reconciliation after the engine was down, the job folders (built once, shared by all of them) and Studio's copies of input images.
 */
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { EngineModule } from '../engine/engine.module.js';
import type { EventBus } from '../events/event-bus.js';
import type { Uploads } from '../http/uploads.js';
import type { WsHub } from '../http/ws-hub.js';
import type { Logger } from '../logging.js';
import type { StudioModule } from '../module.js';
import type { WorkflowService } from '../workflows/workflow.service.js';
import { InputCopies } from './input-copies.js';
import { broadcastJobChanges, logJobChanges } from './job-announce.js';
import { JobFolders } from './job-folders.store.js';
import { JobLifecycle } from './job-lifecycle.js';
import { JobMonitor } from './job-monitor.js';
import { JobQueries } from './job-queries.service.js';
import { Reconciler } from './job-reconcile.js';
import { JobStore } from './job.store.js';
import { jobsRoutes } from './jobs.routes.js';
import { OutputCollector } from './output-collector.js';
import { runRoutes } from './run.routes.js';
import { RunnerService } from './runner.service.js';
import { JobQueueService, LOCAL_ENGINE_ID } from './queue/job-queue.service.js';
import { queueRoutes } from './queue/queue.routes.js';
import { QueueStore } from './queue/queue.store.js';
import { RetryStalled } from './queue/retry-stalled.js';
import { SettingsStore } from '../db/settings.store.js';

export interface JobsModuleDeps {
  config: Readonly<Config>;
  db: Db;
  events: EventBus;
  hub: WsHub;
  logger: Logger;
  engine: Pick<EngineModule, 'client' | 'socket' | 'sharedFolders' | 'onUp' | 'onDown'>;
  workflows: WorkflowService;
  uploads: Uploads;
  /** How often the monitor checks jobs the engine socket is silent about (tests set it out of reach). */
  pollMs?: number;
}

export interface JobsModule extends StudioModule {
  jobs: JobStore;
  /** The one writer of job status; subscribe to it for every change. */
  lifecycle: JobLifecycle;
  monitor: JobMonitor;
  runner: RunnerService;
  /** Studio's own queue: holds validated jobs and hands them to the engine. */
  queue: JobQueueService;
}

export function createJobsModule(deps: JobsModuleDeps): JobsModule {
  const { config, logger, engine } = deps;
  const jobs = new JobStore(deps.db);
  const lifecycle = new JobLifecycle({ db: deps.db, jobs, logger });
  const offs = [logJobChanges(lifecycle, deps.events), broadcastJobChanges(lifecycle, deps.hub)];
  const folders = new JobFolders(config.paths.assetsOutput);
  const shared = (folder: 'input' | 'output') => () => engine.sharedFolders.folders.includes(folder);
  const common = { engine: engine.client, jobs, lifecycle, folders, hub: deps.hub, logger };
  const collector = new OutputCollector({ engine: engine.client, folders, outputShared: shared('output'), logger });
  const monitor = new JobMonitor({ ...common, socket: engine.socket, collector, stallMs: config.jobs.stallMs, pollMs: deps.pollMs });
  const queue = new JobQueueService({
    ...common,
    store: new QueueStore(deps.db),
    settings: new SettingsStore(deps.db),
    engines: [{ id: LOCAL_ENGINE_ID, client: engine.client, monitor, clientId: engine.socket.clientId }],
    events: deps.events,
  });
  const inputs = new InputCopies({ dir: config.paths.assetsInput, shared: shared('input') });
  const runner = new RunnerService({
    ...common,
    previewMethod: config.engine.previewMethod,
    keepInputCopy: (file, name) => inputs.keep(file.path, name),
    removeInput: (name) => inputs.remove(name),
    workflows: deps.workflows,
    clientId: engine.socket.clientId,
    queue,
    events: deps.events,
  });
  const queries = new JobQueries({ ...common, monitor, queueOrder: (active) => queue.order(active) });
  // Unfinished jobs are checked against the engine when it comes up, at boot and after it was down.
  const reconciler = new Reconciler({ jobs, engine: engine.client, monitor, events: deps.events, logger, isWaiting: (id) => queue.isWaiting(id) });
  engine.onUp(() => void reconciler.runIfPending());
  engine.onDown(() => reconciler.markPending());

  return {
    name: 'jobs',
    routers: [
      runRoutes(runner, queries, deps.uploads),
      jobsRoutes({ queries, runner, jobs, dirs: { input: config.paths.assetsInput, output: config.paths.assetsOutput } }),
      queueRoutes({ queue, retryStalled: new RetryStalled({ jobs, retry: (id, who) => runner.retry(id, who) }) }),
    ],
    jobs,
    lifecycle,
    monitor,
    runner,
    queue,
    // Before any module starts, the engine among them: no message of a running job is missed, and
    // jobs left waiting by the last run are stalled before the engine's jobs are reconciled.
    prepare: async () => {
      monitor.start();
      queue.recover();
    },
    start: () => queue.start(),
    stop() {
      reconciler.stop();
      queue.stop();
      monitor.stop();
      for (const off of offs) off();
    },
  };
}

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
import { broadcastJobChanges, clearFinishedMarkers, logJobChanges } from './job-announce.js';
import { JobFolders } from './job-folders.store.js';
import { JobLifecycle } from './job-lifecycle.js';
import { JobMonitor } from './job-monitor.js';
import { JobQueries } from './job-queries.service.js';
import { Reconciler } from './job-reconcile.js';
import { JobStore } from './job.store.js';
import { jobsRoutes } from './jobs.routes.js';
import { jobAudit } from './job-audit.js';
import { OutputCollector, type OutputStamp } from './output-collector.js';
import type { JobRecord } from '../contracts/jobs.contract.js';
import type { ApiGraph } from '../engine/engine-graph.js';
import { runRoutes } from './run.routes.js';
import { RunnerService } from './runner.service.js';
import { RunLimits, type PersonLimits } from './run-limits.js';
import { JobQueueService } from './queue/job-queue.service.js';
import type { QueueEngine } from './queue/queue-engine.js';
import { LOCAL_ENGINE_ID } from '../engine/pool/engine-pool.js';
import { dropOrphanSnapshot, readOrphanSnapshot } from '../engine/engine-orphan.js';
import type { PoolEngine } from '../engine/pool/pool-engine.js';
import { queueRoutes } from './queue/queue.routes.js';
import { enginesRoutes } from './queue/engines.routes.js';
import { QueueStore } from './queue/queue.store.js';
import { retryStalled } from './queue/retry-stalled.js';
import { ResumeAfterRestart } from './queue/resume-after-restart.js';
import { SettingsStore } from '../db/settings.store.js';
import { OWNER_ACTOR } from '../http/actor.js';

export interface JobsModuleDeps {
  config: Readonly<Config>;
  db: Db;
  events: EventBus;
  hub: WsHub;
  logger: Logger;
  engine: Pick<EngineModule, 'client' | 'socket' | 'sharedFolders' | 'onUp' | 'onDown' | 'pool'>;
  workflows: WorkflowService;
  uploads: Uploads;
  /** The catalog's SHA-256 of a model file (an agent of the pool can be asked to download it). */
  modelSha256?: (file: string) => string | null | undefined;
  /** Records who uploaded an input (the assets capability keeps it). */
  inputOwner?: (storedName: string, ownerId: string) => void;
  inputOwnerOf?: (storedName: string) => string;
  /** A person's stored quotas and allow-lists (the users capability keeps them). */
  limitsOf?: (userId: string) => PersonLimits | null;
  /** How often the monitor checks jobs the engine socket is silent about (tests set it out of reach). */
  pollMs?: number;
  /** Provenance (issue 46): metadata into a finished job's outputs, the lock recorded at submission, a job's lock for its package. */
  provenance?: { stamp: OutputStamp; recordLock: (job: JobRecord, graph: ApiGraph) => void; lockOf: (promptId: string) => unknown };
}

export interface JobsModule extends StudioModule {
  jobs: JobStore;
  /** The one writer of job status; subscribe to it for every change. */
  lifecycle: JobLifecycle;
  monitor: JobMonitor;
  runner: RunnerService;
  /** Studio's own queue: holds validated jobs and hands them to the engine. */
  queue: JobQueueService;
  /** History reads and deletes (disk retention deletes through it). */
  queries: JobQueries;
  /** Each person's allow-lists and quotas, and their use of them. */
  limits: RunLimits;
}

/** Poll `check` every 100 ms for up to `ms`. */
async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
  return check();
}

export function createJobsModule(deps: JobsModuleDeps): JobsModule {
  const { config, logger, engine } = deps;
  const jobs = new JobStore(deps.db);
  const lifecycle = new JobLifecycle({ db: deps.db, jobs, logger });
  const folders = new JobFolders(config.paths.assetsOutput);
  const offs = [clearFinishedMarkers(lifecycle, folders, logger), logJobChanges(lifecycle, deps.events), broadcastJobChanges(lifecycle, deps.hub)];
  const shared = (folder: 'input' | 'output') => () => engine.sharedFolders.folders.includes(folder);
  const common = { engine: engine.client, jobs, lifecycle, folders, hub: deps.hub, logger };
  // Each engine's monitor follows its socket and copies outputs from it when its folders are its own.
  const monitorOf = ({ client, socket }: Pick<PoolEngine, 'client' | 'socket'>, outputShared: () => boolean) =>
    new JobMonitor({ ...common, engine: client, socket, stallMs: config.jobs.stallMs, pollMs: deps.pollMs, collector: new OutputCollector({ engine: client, folders, outputShared, stamp: deps.provenance?.stamp, logger }) });
  const monitor = monitorOf(engine, shared('output'));
  // One queue engine per engine of the pool: its own monitor (its socket), output collector and reconciler.
  const members = new Map<string, { engine: QueueEngine; reconciler: Reconciler; stop: () => void }>();
  const queueStore = new QueueStore(deps.db);
  const queue = new JobQueueService({
    ...common,
    store: queueStore,
    settings: new SettingsStore(deps.db),
    engines: () => [...members.values()].map((m) => m.engine),
    inputDir: config.paths.assetsInput,
    events: deps.events,
  });
  const attach = (member: PoolEngine) => {
    const local = member.id === LOCAL_ENGINE_ID;
    const own = local ? monitor : monitorOf(member, () => member.sharesFolders());
    if (!local) own.start();
    const engine: QueueEngine = {
      id: member.id,
      name: member.name,
      client: member.client,
      cancelClient: member.cancelClient,
      monitor: own,
      clientId: member.socket.clientId,
      online: () => member.status === 'online',
      objectInfo: () => member.cachedObjectInfo(),
      sharesFolders: () => local || member.sharesFolders(),
    };
    // The jobs this engine holds are checked with it when it is back (the others belong to other engines).
    const ownEngine = local && config.engine.mode !== 'external' ? { orphan: () => readOrphanSnapshot(config.paths.engine, config.engine.port), orphanChecked: () => dropOrphanSnapshot(config.paths.engine, config.engine.port) } : undefined;
    const reconciler = new Reconciler({ jobs, engine: member.client, monitor: own, events: deps.events, logger, ownEngine, isWaiting: (id) => queue.isWaiting(id) || (queue.engineOf(id) ?? LOCAL_ENGINE_ID) !== member.id });
    // An agent whose engine restarted faster than the health interval: what it held is gone; fail it over.
    const offRestarted = member.onRestarted(() => {
      deps.events.emit('engine.restarted', 'warning', `The engine of agent ${member.name} restarted: the jobs it held go back to the queue`, { engine_id: member.id });
      reconciler.markPending();
      queue.failover(member.id);
      void queue.engineBack(member.id);
    });
    members.get(member.id)?.stop();
    members.set(member.id, {
      engine,
      reconciler,
      stop: () => {
        // Its retries end with it (a removed engine, or Studio stopping).
        reconciler.stop();
        offRestarted();
        if (!local) own.stop();
      },
    });
    queue.schedule();
  };
  engine.pool.onAdded(attach);
  engine.pool.onRemoved((member) => {
    queue.failover(member.id);
    members.get(member.id)?.stop();
    members.delete(member.id);
  });
  engine.pool.onStatus((member, status, previous) => {
    const m = members.get(member.id);
    if (status === 'online') {
      // Its node list is read before jobs are routed to it.
      void member.objectInfo(true).then(() => queue.schedule());
      // Back after failover: the copies of jobs other engines took over are taken off it.
      void queue.engineBack(member.id);
      if (member.id !== LOCAL_ENGINE_ID) void m?.reconciler.runIfPending();
    } else if (previous === 'online' && status !== 'stopped') {
      m?.reconciler.markPending();
      queue.failover(member.id);
    }
  });
  for (const member of engine.pool.list()) attach(member);
  const localUp = () => engine.pool.get(LOCAL_ENGINE_ID)?.status === 'online';
  const inputs = new InputCopies({ dir: config.paths.assetsInput, shared: shared('input') });
  const limits = new RunLimits({ jobs, limitsOf: deps.limitsOf ?? (() => null) });
  const runner = new RunnerService({
    ...common,
    recordLock: deps.provenance?.recordLock,
    limits,
    previewMethod: config.engine.previewMethod,
    standin: () => config.engine.mode === 'standin',
    inputOwner: deps.inputOwner,
    inputOwnerOf: deps.inputOwnerOf,
    inputs,
    workflows: deps.workflows,
    clientId: engine.socket.clientId,
    queue,
    events: deps.events,
    otherEngines: () => engine.pool.list().filter((e) => e.id !== LOCAL_ENGINE_ID),
    localEngine: { status: () => engine.pool.get(LOCAL_ENGINE_ID)?.status ?? 'offline', waitUp: (ms) => waitFor(localUp, ms) },
  });
  // Progress of a job on any engine; a deleted job is forgotten by every monitor.
  const anyMonitor = {
    progress: (id: string) => [...members.values()].map((m) => m.engine.monitor.progress(id)).find((p) => p !== null) ?? null,
    untrack: (id: string) => [...members.values()].forEach((m) => m.engine.monitor.untrack(id)),
  };
  // A job is asked about on the engine it was handed to (its queue row, else its record), also after a restart.
  const engineOf = (id: string) => engine.pool.get(queue.engineOf(id) ?? jobs.get(id)?.engine_id ?? LOCAL_ENGINE_ID)?.client ?? engine.client;
  const queries = new JobQueries({ ...common, monitor: anyMonitor, engineOf, stopActive: (id) => queue.takeOff(id), queueOrder: (active) => queue.order(active) });
  const audited = jobAudit(deps.events, (id) => jobs.get(id)?.owner_id);
  const resume = new ResumeAfterRestart({ enabled: config.jobs.resumeAfterRestart, lifecycle, retry: (id, who) => runner.retry(id, who, OWNER_ACTOR, jobs.get(id)?.owner_id), events: deps.events, logger });
  // Jobs the last run left on this computer's engine: the retries wait for its first check (which stalls the lost ones).
  let localHeldAtBoot = false;
  let resumeTimer: NodeJS.Timeout | null = null;
  // Unfinished jobs are checked against the engine when it comes up, at boot and after it was down.
  engine.onUp(() => void members.get(LOCAL_ENGINE_ID)?.reconciler.runIfPending().then(() => resume.resume()));
  engine.onDown(() => members.get(LOCAL_ENGINE_ID)?.reconciler.markPending());

  return {
    name: 'jobs',
    routers: [
      runRoutes(runner, queries, deps.uploads),
      jobsRoutes({ queries, runner, dirs: { input: config.paths.assetsInput, output: config.paths.assetsOutput }, audited, lockOf: deps.provenance?.lockOf }),
      queueRoutes({ queue, retryStalled: (submitter, actor) => retryStalled(jobs, runner, submitter, actor), audited }),
      enginesRoutes({ pool: engine.pool, queue, lacksOn: (info) => deps.workflows.lacksOn(info), sha256Of: deps.modelSha256 ?? (() => undefined), events: deps.events }),
    ],
    jobs,
    lifecycle,
    monitor,
    runner,
    queue,
    queries,
    limits,
    // Before any module starts, the engine among them: no message of a running job is missed, and
    // jobs left waiting by the last run are stalled before the engine's jobs are reconciled.
    prepare: async () => {
      monitor.start();
      resume.watch();
      const before = [...queueStore.handed(), ...queueStore.waiting()];
      localHeldAtBoot = before.some((row) => row.engine_id === LOCAL_ENGINE_ID);
      resume.remember(before);
      queue.recover();
    },
    start: () => {
      queue.start();
      if (!localHeldAtBoot) resume.resume();
      // This computer's engine may never answer (external, not running): the waiting jobs are resumed all the same.
      else resumeTimer = setTimeout(() => resume.resume(), 60_000).unref();
    },
    stop() {
      if (resumeTimer) clearTimeout(resumeTimer);
      resume.stop();
      queue.stop();
      for (const m of members.values()) m.stop();
      monitor.stop();
      for (const off of offs) off();
    },
  };
}

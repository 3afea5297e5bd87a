/**
 * The composition root: opens the shared infrastructure (data directory, log, database, event
 * bus, WebSocket hub), builds every capability once as a module of one shape (`module.ts`), in
 * order, each after the ones it uses, and runs them in phases: prepare → listen → start; on stop,
 * the modules in reverse order, each within its deadline, then the listener, the bus and the
 * database. No domain logic lives here: only what is built, in which order, and what it is given.
 */
import fs from 'node:fs/promises';
import { createAssetsModule } from './assets/assets.module.js';
import { createBatchesModule } from './batches/batches.module.js';
import { AssetOwners } from './assets/asset-owners.js';
import { createCatalogModule, type CatalogModule } from './catalog/catalog.module.js';
import { llmCatalogAccess } from './catalog/llm-catalog-access.js';
import { createChatbotModule } from './chatbot/chatbot.module.js';
import { createComfyApiModule } from './comfy-api/comfy-api.module.js';
import { createDiskModule } from './disk/disk.module.js';
import { FileHashStore } from './disk/file-hash.store.js';
import { findEntry } from './catalog/catalog-set.js';
import { createProvenanceModule } from './provenance/provenance.module.js';
import type { Config } from './config.js';
import type { Db } from './db/database.js';
import { createEngineModule, type EngineModule } from './engine/engine.module.js';
import type { EventBus } from './events/event-bus.js';
import { createEventsModule } from './http/events.module.js';
import { createAuthModule } from './http/auth.module.js';
import { boundPort, listen, localUrl } from './http/listen.js';
import { prefixListener } from './http/prefix-listener.js';
import { DOOR_PREFIX } from './http/door-credentials.js';
import { Maintenance } from './http/maintenance.js';
import { WsHub } from './http/ws-hub.js';
import { createJobsModule, type JobsModule } from './jobs/jobs.module.js';
import { createLlmModule, type LlmModule } from './llm/llm.module.js';
import { closeInfrastructure, openInfrastructure } from './infrastructure.js';
import type { Logger } from './logging.js';
import { ModelhubClient } from './modelhub-client/modelhub.client.js';
import { createModelhubModule } from './modelhub/modelhub.module.js';
import { LateBound, stopModules, withDeadline, type StudioModule } from './module.js';
import { createNodesModule } from './nodes/nodes.module.js';
import { createNotificationsModule } from './notifications/notifications.module.js';
import { nodePackageCount } from './nodes/package-count.js';
import { createPresetsModule, type PresetsModule } from './presets/presets.module.js';
import { GpuProbe } from './gpu/index.js';
import { createSetupModule } from './setup/setup.module.js';
import { createUsersModule } from './users/users.module.js';
import { createSecrets, createSystemModule } from './system/system.module.js';
import { lanUrls } from './system/lan-addresses.js';
import { createWorkflowsModule, type WorkflowsModule } from './workflows/workflows.module.js';
import type { StudioOptions } from './studio-options.js';
import { createStudioHttpServer } from './studio-http.js';

/** A running (or stoppable) Studio. */
export class Studio {
  readonly startedAt = Date.now();
  readonly logger: Logger;
  readonly db: Db;
  readonly events: EventBus;
  readonly maintenance = new Maintenance();
  readonly hub: WsHub;
  /** The capabilities, in the order they are built, prepared and started (stopped in reverse). */
  readonly modules: readonly StudioModule[];
  readonly engineModule: EngineModule;
  readonly jobsModule: JobsModule;
  readonly catalog: CatalogModule;
  readonly presets: PresetsModule;
  readonly workflowsModule: WorkflowsModule;
  readonly llmModule: LlmModule;
  private readonly system: ReturnType<typeof createSystemModule>;
  private readonly mintCookie: () => string;
  private readonly server: ReturnType<typeof createStudioHttpServer>;
  /** `COMFY_API_PORT`: the engine's API at the root of a port of its own (null: none). */
  private readonly doorServer: ReturnType<typeof prefixListener> | null;
  private stopping: Promise<void> | null = null;

  private constructor(
    readonly config: Readonly<Config>,
    options: StudioOptions,
  ) {
    const { logger, db, events, uploads } = ({ logger: this.logger, db: this.db, events: this.events } = openInfrastructure(config, options));
    const secrets = createSecrets(db, config);
    const base = { config, db, events, logger };

    // The people of this Studio: authentication asks them who a session or a personal key is; ending
    // someone's access closes their sockets on the hub (built just below, asked only later).
    // The people and the jobs use each other (quotas stored here, counted there): the port is bound once the jobs module is built.
    const jobsPort = new LateBound<JobsModule>('the jobs module');
    const users = createUsersModule({ db, events, endAccess: (match, reason) => this.hub.closeActors(match, reason), useOf: (id) => jobsPort.get().limits.use(id) });
    const auth = createAuthModule({ ...base, apiKey: () => secrets.apiKey(), people: users.people });
    this.mintCookie = () => auth.signer.issue();
    // A socket opened with a session cookie closes when that session is signed out or expires.
    const hub = (this.hub = new WsHub(logger, options.heartbeatMs, (session) => auth.signer.liveUntil(session)));
    auth.signer.onRevoke((sid) => hub.closeSession(sid));
    // One model hub client, shared by the catalogs' metadata and the model hub capability (the key is read per request).
    const modelhubClient = new ModelhubClient({ baseUrl: config.urls.modelhub, apiKey: () => secrets.get('MODELHUB_API_KEY') });
    // The catalog and the LLM module use each other: the catalog reaches it through this port.
    const llmPort = new LateBound<LlmModule>('the LLM module');
    const catalog: CatalogModule = (this.catalog = createCatalogModule({
      ...base,
      uploads,
      beforeLlmDelete: (file: string): Promise<void> => llmPort.get().service.beforeModelDelete(file),
      otherDownloads: (file) => llmPort.get().runtimeDownload(file),
      tokens: () => ({ modelhubApiKey: secrets.get('MODELHUB_API_KEY'), hubToken: secrets.get('HUB_TOKEN') }),
      modelhub: modelhubClient,
    }));
    const engine = (this.engineModule = createEngineModule({
      ...base,
      hub,
      startEngine: options.startEngine !== false,
      sharedFolderRecheckMs: options.sharedFolderRecheckMs,
      probeMs: options.engineProbeMs,
      // Agent mode: the main Studio may ask for a catalog model (asked per request).
      agentModels: { sha256Of: (file) => catalog.sha256Of(file), download: (file) => catalog.download(file) },
    }));
    const workflows = (this.workflowsModule = createWorkflowsModule({
      ...base,
      engine,
      destOf: (file) => catalog.destOf(file),
      isShortFile: (file, bytes) => catalog.isShortFile(file, bytes),
      fileBySha256: (sha) => catalog.fileBySha256(sha),
      uploads,
      runChecks: (userId) => jobsPort.get().limits.of(userId),
    }));
    // Who each asset belongs to (issue 43): a job folder its job's owner's, an input its uploader's.
    // The asset owners and the jobs module use each other: the owners reach the jobs through this port.
    const assetOwners = new AssetOwners(db, (folder) => jobsPort.get().jobs.ownerOfFolder(folder));
    // Provenance (issue 46) before the jobs, which call its hooks; it asks the jobs through the port.
    const provenance = createProvenanceModule({
      ...base,
      uploads,
      engineVersion: async () => (await engine.client.systemStats()).system.comfyui_version ?? null,
      workflowVersion: async (id) => (await workflows.service.definition(id)).manifest.version,
      hashes: new FileHashStore(db),
      catalogSha256: (file) => catalog.sha256Of(file),
      hubVersionId: (file) => findEntry(catalog.catalogs, file)?.entry.modelhub_version_id ?? null,
      jobs: () => ({
        visible: (id, actor) => jobsPort.get().queries.visible(id, actor),
        retry: (id, submitter, actor) => jobsPort.get().runner.retry(id, submitter, actor),
        execute: (id, params, image, origin) => jobsPort.get().runner.execute(id, params, image, origin),
      }),
    });
    const jobs = (this.jobsModule = createJobsModule({ ...base, hub, engine, workflows: workflows.service, uploads, pollMs: options.jobPollMs, provenance: provenance.hooks, modelSha256: (file) => catalog.sha256Of(file), inputOwner: (name, owner) => assetOwners.recordInput(name, owner), inputOwnerOf: (name) => assetOwners.ownerOf('inputs', name), limitsOf: (id) => users.limitsOf(id) }));
    jobsPort.bind(jobs);
    // One reading of the GPUs for every capability that asks (the setup page, the LLM server's build).
    const gpu = new GpuProbe({ env: config.childEnv, nvidiaSmi: config.system.nvidiaSmi });
    const llm: LlmModule = (this.llmModule = createLlmModule({ ...base, gpu, imageJobs: jobs.lifecycle, downloads: catalog.downloads, llmCatalog: llmCatalogAccess(catalog.catalogs), hubToken: () => secrets.get('HUB_TOKEN') }));
    llmPort.bind(llm);
    const presets = (this.presets = createPresetsModule({
      ...base,
      jobs: jobs.jobs,
      runner: jobs.runner,
      workflows: workflows.service,
      uploads,
      allowedWorkflows: (userId) => users.limitsOf(userId)?.allow?.workflows ?? null,
    }));
    const batches = createBatchesModule({ ...base, hub, jobs, workflows: workflows.service, presets: presets.service, now: options.batchClock });
    const modelhub = createModelhubModule({
      ...base,
      catalogs: catalog.catalogs,
      client: modelhubClient,
      toInput: (file) => jobs.runner.uploadImage(file),
      presets: presets.service,
      workflows: async () => (await workflows.service.list()).workflows,
    });
    const assets = createAssetsModule({ ...base, uploads, owners: assetOwners, viewAsMissing: (query) => engine.viewAsMissing(query) });
    const chatbot = createChatbotModule({
      ...base,
      secrets,
      studioUrl: () => this.url,
      studioAuth: (as) => auth.auth.internalCredential(as),
      personalKey: (candidate) => users.people.keyActor(candidate),
      options: options.chatbot,
    });
    const nodes = createNodesModule({
      ...base,
      objectInfo: () => workflows.service.objectInfo(),
      invalidateObjectInfo: () => workflows.service.invalidateNodes(),
      restartEngine: () => engine.process.restart(),
      workflows: async () => (await workflows.service.list()).workflows,
      knownNodeSources: () => workflows.knownNodeSources(),
      nodeMapPackages: () => workflows.nodeMapPackages(),
      log: (level, message) => catalog.activity.add(level, message),
    });
    const disk = createDiskModule({
      ...base,
      catalogs: catalog.catalogs,
      downloads: catalog.downloads,
      presetJobs: async () => new Set(await presets.service.sourceJobs()),
      deleteJobs: (ids) => jobs.queries.delete(ids),
    });
    const engineStatus = () => engine.process.state.status;
    this.system = createSystemModule({
      ...base,
      hub,
      startedAt: this.startedAt,
      engineStatus,
      nodePackages: () => nodePackageCount(engineStatus, () => workflows.service.objectInfo()),
      modelsPresence: () => catalog.modelsPresence(),
      bot: chatbot.control,
      secrets,
      auth: auth.auth,
      signIns: auth.signIns,
      maintenance: this.maintenance,
      relaunch: options.relaunch ?? null,
      desktopUpdates: options.desktopUpdates ?? null,
      reloadData: () => catalog.reload(),
    });
    const restart = this.system.restart;
    const setup = createSetupModule({ ...base, hub, gpu, engine, restartStudio: (reason) => restart.trySchedule(1_500, reason) });
    const eventsModule = createEventsModule({ events, hub });
    // Each module after what it uses; the engine before the jobs so it stops after the job watcher.
    // The view guard goes before the engine's routes: another person's file answers as a missing one.
    const viewGuard: StudioModule = { name: 'view-guard', routers: [assets.viewGuard] };
    // The engine's own API for its clients (issue 44), over the jobs' queue and the engine pool.
    // Word when a job is done (issue 47): links point where a phone reaches Studio (its first LAN address).
    const notifications = createNotificationsModule({
      ...base,
      baseUrl: () => lanUrls({ host: config.host, port: this.port, tls: config.tls !== null, loopbackReason: config.loopbackReason }).urls[0] ?? this.url,
      job: (id) => jobs.jobs.get(id),
      thumbnail: async (job) => (job.output ? fs.readFile((await assets.service.thumbnail('outputs', [job.output.subfolder, job.output.filename].filter(Boolean).join('/'))).file) : null),
      roleOf: (id) => users.roleOf(id),
      sleep: options.notifySleep,
    });
    const comfyApi = createComfyApiModule({ ...base, uploads, engine, jobs, mayView: (actor, query) => assetOwners.reachesView(actor, query), keepaliveMs: options.comfyKeepaliveMs });
    this.modules = [auth, users, eventsModule, viewGuard, engine, catalog, workflows, provenance, jobs, llm, presets, batches, modelhub, assets, chatbot, nodes, disk, this.system, setup, comfyApi, notifications];
    this.server = createStudioHttpServer({ config, logger, events, auth, hub, maintenance: this.maintenance, engine, modules: this.modules, wsRoutes: comfyApi.wsRoutes, otherSockets: (address) => comfyApi.socketsFrom(address) });
    this.doorServer = config.comfyApi.port === null ? null : prefixListener(this.server, DOOR_PREFIX, config.tls);
  }

  /** Build a Studio: data directory, database and modules, nothing listening yet. */
  static create(config: Readonly<Config>, options: StudioOptions = {}): Studio {
    return new Studio(config, options);
  }

  /** The port the engine API's own listener bound (`COMFY_API_PORT`; null: none). */
  get comfyPort(): number | null {
    return this.doorServer ? boundPort(this.doorServer, this.config.comfyApi.port ?? 0) : null;
  }

  /** The port actually bound (useful with STUDIO_PORT=0). */
  get port(): number {
    return boundPort(this.server, this.config.port);
  }

  /**
   * The local URL of the UI, for Studio's own clients (the desktop window, the chat bot): loopback
   * when Studio listens on every interface, else the one address it actually bound.
   */
  get url(): string {
    return localUrl(this.server, Boolean(this.config.tls), this.config.port);
  }

  /**
   * A session cookie value minted in-process for the desktop window: it never goes through the
   * public login route, so a local flood of wrong keys cannot lock the owner out of their window.
   */
  mintSession(): string {
    return this.mintCookie();
  }

  /** Prepare every module, listen, announce, then start every module (the engine in the background). */
  async start(): Promise<void> {
    for (const module of this.modules) await module.prepare?.();
    await listen(this.server, this.config.port, this.config.host);
    if (this.doorServer) await listen(this.doorServer, this.config.comfyApi.port ?? 0, this.config.host);
    this.system.announce(this.port);
    for (const module of this.modules) await module.start?.();
  }

  /** Resolves when the engine answers (or rejects after `timeoutMs`). */
  engineReady(timeoutMs = 30_000): Promise<void> {
    return this.engineModule.ready(timeoutMs);
  }

  /** Stop accepting, close sockets, stop the modules, checkpoint the WAL. Safe to call twice. */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private async shutdown(): Promise<void> {
    this.logger.info('Studio is stopping');
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.doorServer?.close();
    this.doorServer?.closeAllConnections();
    this.server.closeIdleConnections();
    this.hub.close();
    await stopModules(this.modules, this.logger);
    // In-flight requests get a moment to finish; then every connection is cut.
    await withDeadline(closed, 3_000, () => this.server.closeAllConnections());
    closeInfrastructure(this);
    this.logger.info('Studio stopped');
  }

  // What tests and the desktop shell read of the running capabilities.
  get engine() { return this.engineModule.process; } // prettier-ignore
  get engineSocket() { return this.engineModule.socket; } // prettier-ignore
  get sharedFolders() { return this.engineModule.sharedFolders; } // prettier-ignore
  get jobs() { return this.jobsModule.jobs; } // prettier-ignore
  get lifecycle() { return this.jobsModule.lifecycle; } // prettier-ignore
  get monitor() { return this.jobsModule.monitor; } // prettier-ignore
  get workflows() { return this.workflowsModule.service; } // prettier-ignore
  get llm() { return this.llmModule.service; } // prettier-ignore
}

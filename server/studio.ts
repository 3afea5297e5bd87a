/**
 * The composition root: builds every service once, wires them, and starts and stops them in
 * explicit phases (CONVENTIONS 4): config → data dir → database → event bus → services →
 * HTTP/WS listen → child processes; shutdown in reverse, each step with a deadline.
 */
import type { AddressInfo } from 'node:net';
import type http from 'node:http';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { createAssetsModule, type AssetsModule } from './assets/assets.module.js';
import { createCatalogModule, type CatalogModule } from './catalog/catalog.module.js';
import { catalogSchemaFor } from './contracts/catalog.contract.js';
import { createChatbotModule, type ChatbotOptions } from './chatbot/chatbot.module.js';
import type { ChatbotService } from './chatbot/chatbot.service.js';
import { CatalogStore, seedCatalogs } from './catalog/catalog.store.js';
import { APP_ROOT, MIN_LAN_KEY_LENGTH, SHIPPED_ROOT, type Config } from './config.js';
import { ensureDataDir, loadSessionSecret } from './config/data-dir.js';
import { checkpoint, openDatabase, type Db } from './db/database.js';
import { engineAvailability } from './engine/engine-availability.js';
import { EngineClient } from './engine/engine.client.js';
import { engineMessage, EngineProcess } from './engine/engine-process.js';
import { studioEngineDirs } from './engine/engine-launch.js';
import { engineRoutes } from './engine/engine.routes.js';
import { SharedFolders } from './engine/shared-folders.js';
import { EngineSocket } from './engine/engine-socket.js';
import { EventBus } from './events/event-bus.js';
import { eventsRoutes } from './events/events.routes.js';
import { createHttpServer } from './http/app.js';
import { authRoutes } from './http/auth.routes.js';
import { Authenticator } from './http/authenticator.js';
import { homeRoutes } from './http/home.routes.js';
import { rendererRoutes } from './http/renderer.routes.js';
import { KeyLimiter } from './http/key-limiter.js';
import { RevokedSessionStore } from './http/revoked-sessions.store.js';
import { Maintenance } from './http/maintenance.js';
import { SessionSigner } from './http/session.js';
import { StorageFaults } from './http/storage-faults.js';
import { Uploads } from './http/uploads.js';
import { WsHub } from './http/ws-hub.js';
import { createFileLogger, type Logger } from './logging.js';
import { JobFolders } from './jobs/job-folders.store.js';
import { loadEngineClientId } from './jobs/engine-client-id.store.js';
import { JobMonitor } from './jobs/job-monitor.js';
import { OutputCollector } from './jobs/output-collector.js';
import { JobQueries } from './jobs/job-queries.service.js';
import { broadcastJobChanges, logJobChanges } from './jobs/job-announce.js';
import { JobLifecycle } from './jobs/job-lifecycle.js';
import { Reconciler } from './jobs/job-reconcile.js';
import { JobStore } from './jobs/job.store.js';
import { jobsRoutes } from './jobs/jobs.routes.js';
import { runRoutes } from './jobs/run.routes.js';
import { RunnerService } from './jobs/runner.service.js';
import { createLlmModule } from './llm/llm.module.js';
import type { LlmService } from './llm/llm.service.js';
import { ModelhubClient } from './modelhub-client/modelhub.client.js';
import { createModelhubModule, type ModelhubModule } from './modelhub/modelhub.module.js';
import { NodeInstallService } from './nodes/node-install.service.js';
import { createPresetsModule, type PresetsModule } from './presets/presets.module.js';
import { nodesRoutes } from './nodes/nodes.routes.js';
import { type BotControl } from './system/bot-control.js';
import { reportMigrations } from './system/migration-report.js';
import { Secrets } from './system/secrets.store.js';
import { healthRoutes } from './system/health.routes.js';
import { SettingsStore } from './db/settings.store.js';
import { createSystemModule, type SystemModule } from './system/system.module.js';
import { groupNodePackages } from './workflows/node-packages.js';
import { diskPresence, presenceSummary } from './catalog/model-status.js';
import { seedWorkflows } from './workflows/workflow-seed.store.js';
import { WorkflowService } from './workflows/workflow.service.js';
import { workflowsRoutes } from './workflows/workflows.routes.js';
import { nodeMapLoader } from './workflows/import/node-map.store.js';
import { WorkflowImportService } from './workflows/import/workflow-import.service.js';
import { workflowImportRoutes } from './workflows/import/workflow-import.routes.js';
import { STUDIO_TIME_ZONE } from './time.js';

export interface StudioOptions {
  /** Defaults to `STUDIO_DIR/logs/server.log`, echoed to the console. */
  logger?: Logger;
  /** Print log lines to the console too (headless server: yes; tests: no). */
  console?: boolean;
  /** Start the engine (tests of the HTTP layer alone turn it off). */
  startEngine?: boolean;
  /** WebSocket heartbeat interval. */
  heartbeatMs?: number;
  /** First wait before the shared-folder probe runs again after a marker could not be written. */
  sharedFolderRecheckMs?: number;
  /** The chat bot: its library loader (tests inject one that fails) and its timings. */
  chatbot?: ChatbotOptions;
  /**
   * Replace this Studio with a fresh one (`POST /api/admin/system/restart`, after an update):
   * headless re-executes itself, Electron relaunches. Without it, restart answers 409.
   */
  relaunch?: () => void | Promise<void>;
}

/** A running (or stoppable) Studio. */
export class Studio {
  readonly startedAt = Date.now();
  readonly logger: Logger;
  readonly db: Db;
  readonly events: EventBus;
  readonly maintenance = new Maintenance();
  readonly hub: WsHub;
  readonly engine: EngineProcess;
  readonly engineClient: EngineClient;
  readonly engineSocket: EngineSocket;
  /** Which engine folders are Studio's own (re-checked each time the engine comes up). */
  readonly sharedFolders: SharedFolders;
  readonly catalogs: { models: CatalogStore; loras: CatalogStore };
  readonly workflows: WorkflowService;
  readonly jobs: JobStore;
  /** The one writer of job status; every change is published to the event log, WS and the LLM policy. */
  readonly lifecycle: JobLifecycle;
  readonly monitor: JobMonitor;
  readonly runner: RunnerService;
  /** Catalogs, the download queue, metadata and the download settings. */
  readonly catalog: CatalogModule;
  readonly assets: AssetsModule;
  /** Model hub lookups, catalog add/promote, the gallery and tag names. */
  readonly modelhub: ModelhubModule;
  /** Presets, their placeholder questions and runs. */
  readonly presets: PresetsModule;
  /** The local LLM server and its chat proxy. */
  readonly llm: LlmService;
  /** The chat bot that runs presets from a chat. */
  readonly chatbot: ChatbotService;
  /** Status, telemetry, settings and secrets, update, restart. */
  readonly system: SystemModule;
  /** The five variables editable at runtime, live (stored values over the environment's). */
  readonly secrets: Secrets;
  /** The chat bot as the system capability sees it (status block, restart on token change). */
  readonly bot: BotControl;
  private readonly signer: SessionSigner;
  private readonly server: http.Server;
  /** Checks unfinished jobs against the engine at boot and after the engine was down. */
  private readonly reconciler: Reconciler;
  private stopping: Promise<void> | null = null;
  private unsubscribers: Array<() => void> = [];

  private constructor(
    readonly config: Readonly<Config>,
    private readonly options: StudioOptions,
  ) {
    ensureDataDir(config.paths);
    this.logger = options.logger ?? createFileLogger(config.paths.logs, 'server', { console: options.console ?? true });
    if (config.studioDirFallbackFrom) {
      this.logger.warn(`${config.studioDirFallbackFrom} could not be created; using ${config.paths.root} for Studio's data`);
    }
    this.db = openDatabase(config.paths.dbFile);
    this.events = new EventBus({ file: config.paths.eventsFile, db: this.db, logger: this.logger });
    this.events.load();
    reportMigrations(this.db, this.events, this.startedAt);

    this.secrets = new Secrets(new SettingsStore(this.db), {
      API_KEY: config.apiKey,
      MODELHUB_API_KEY: config.tokens.modelhubApiKey,
      HUB_TOKEN: config.tokens.hubToken,
      CHATBOT_BOT_TOKEN: config.tokens.chatbotBotToken,
      CHATBOT_BOT_NAME: config.tokens.chatbotBotName,
    });
    // Read on every check: a key changed in settings applies at once and ends every session.
    const signer = new SessionSigner(loadSessionSecret(config.paths.sessionSecret), () => this.secrets.apiKey(), Date.now, new RevokedSessionStore(this.db));
    const auth = new Authenticator(signer, new KeyLimiter(), (address, verdict) =>
      this.events.emit(
        'auth.throttled',
        'warning',
        verdict.scope === 'global'
          ? 'Too many wrong API keys from several addresses; key checks paused for everyone for a minute'
          : `Too many wrong API keys from ${address}; key checks paused for it for a minute`,
        { address, scope: verdict.scope, retry_after_s: verdict.retryAfterS },
      ),
    );
    this.signer = signer;
    // A socket opened with a session cookie closes when that session is signed out or expires.
    this.hub = new WsHub(this.logger, options.heartbeatMs, (session) => signer.liveUntil(session));
    signer.onRevoke((sid) => this.hub.closeSession(sid));
    this.engine = new EngineProcess({ config, logger: this.logger, env: config.childEnv });
    // Calls fail at once while the engine is known to be down, instead of waiting out timeouts.
    this.engineClient = new EngineClient({ baseUrl: this.engine.url, availability: engineAvailability(this.engine) });
    // Kept across restarts: the engine sends a prompt's events to the id it was submitted with.
    const clientId = loadEngineClientId(path.join(config.paths.jobs, 'engine-client-id'));
    this.engineSocket = new EngineSocket({ baseUrl: this.engine.url, clientId, logger: this.logger });
    this.sharedFolders = new SharedFolders({
      engine: this.engineClient,
      dirs: studioEngineDirs(config),
      logger: this.logger,
      recheckMs: options.sharedFolderRecheckMs,
    });

    const catalogStore = (kind: 'models' | 'loras') =>
      new CatalogStore({ file: path.join(config.paths.catalogs, `${kind}.json`), schema: catalogSchemaFor(kind) });
    this.catalogs = { models: catalogStore('models'), loras: catalogStore('loras') };
    this.workflows = new WorkflowService({
      dir: config.paths.workflows,
      modelsDir: config.paths.models,
      modelsFromEngine: config.engine.mode === 'external',
      engine: this.engineClient,
      destOf: (file) => this.catalogDest(file),
      events: this.events,
      logger: this.logger,
    });
    this.jobs = new JobStore(this.db);
    this.lifecycle = new JobLifecycle({ db: this.db, jobs: this.jobs, logger: this.logger });
    logJobChanges(this.lifecycle, this.events);
    broadcastJobChanges(this.lifecycle, this.hub);
    const folders = new JobFolders(config.paths.assetsOutput);
    const jobDeps = { engine: this.engineClient, jobs: this.jobs, lifecycle: this.lifecycle, folders, hub: this.hub, logger: this.logger };
    const collector = new OutputCollector({
      engine: this.engineClient,
      folders,
      outputShared: () => this.sharedFolders.folders.includes('output'),
      logger: this.logger,
    });
    this.monitor = new JobMonitor({ ...jobDeps, socket: this.engineSocket, collector, stallMs: config.jobs.stallMs });
    this.runner = new RunnerService({
      ...jobDeps,
      previewMethod: config.engine.previewMethod,
      keepInputCopy: (file, name) => this.keepInputCopy(file.path, name),
      removeInput: (name) => this.removeInput(name),
      workflows: this.workflows,
      clientId: this.engineSocket.clientId,
      monitor: this.monitor,
      events: this.events,
    });
    const queries = new JobQueries({ ...jobDeps, monitor: this.monitor });
    this.reconciler = new Reconciler({ jobs: this.jobs, engine: this.engineClient, monitor: this.monitor, events: this.events, logger: this.logger });
    const uploads = new Uploads(path.join(config.paths.root, 'tmp', 'uploads'));
    // One model hub client for the catalogs' metadata and the model hub capability (the key is read per request).
    const modelhubClient = new ModelhubClient({ baseUrl: config.urls.modelhub, apiKey: () => this.secrets.get('MODELHUB_API_KEY') });
    this.catalog = createCatalogModule({
      config,
      db: this.db,
      events: this.events,
      logger: this.logger,
      catalogs: this.catalogs,
      uploads,
      beforeLlmDelete: (file) => this.llm.beforeModelDelete(file),
      tokens: () => ({ modelhubApiKey: this.secrets.get('MODELHUB_API_KEY'), hubToken: this.secrets.get('HUB_TOKEN') }),
      modelhub: modelhubClient,
    });
    const llm = createLlmModule({ config, events: this.events, logger: this.logger });
    this.llm = llm.service;
    this.assets = createAssetsModule({ config, events: this.events, logger: this.logger, uploads });
    const chatbot = createChatbotModule({
      config,
      db: this.db,
      secrets: this.secrets,
      events: this.events,
      logger: this.logger,
      studioUrl: () => this.url,
      studioAuth: () => auth.internalCredential(),
      options: options.chatbot,
    });
    this.chatbot = chatbot.service;
    this.bot = chatbot.control;
    this.modelhub = createModelhubModule({
      config,
      logger: this.logger,
      db: this.db,
      events: this.events,
      catalogs: this.catalogs,
      client: modelhubClient,
      toInput: (file) => this.runner.uploadImage(file),
      // The presets capability is built just below; these run only once requests arrive.
      presets: {
        createPreset: (input) => this.presets.service.createPreset(input),
        exists: (id) => this.presets.service.exists(id),
      },
      workflows: async () => (await this.workflows.list()).workflows,
    });
    this.presets = createPresetsModule({ config, db: this.db, jobs: this.jobs, runner: this.runner, workflows: this.workflows, uploads, logger: this.logger });

    const engineStatus = () => this.engine.state.status;
    this.system = createSystemModule({
      config,
      db: this.db,
      logger: this.logger,
      hub: this.hub,
      startedAt: this.startedAt,
      engineStatus,
      nodePackages: async () => (this.engine.state.status === 'running' ? groupNodePackages(await this.workflows.objectInfo()).length : 0),
      modelsPresence: () => {
        if (!this.catalogs.models.isLoaded()) return { count: 0, present: 0 };
        const { total, present } = presenceSummary(this.catalogs.models.get(), 'models', diskPresence({ models: config.paths.models, llmModels: config.paths.llmModels }));
        return { count: total, present };
      },
      bot: this.bot,
      events: this.events,
      secrets: this.secrets,
      checkKey: (address, candidate) => {
        const result = auth.checkKey(address, candidate);
        return result.kind === 'key' ? { kind: 'ok' } : result.kind === 'throttled' ? result : { kind: 'bad' };
      },
      maintenance: this.maintenance,
      checkpoint: () => checkpoint(this.db),
      relaunch: options.relaunch ?? null,
      reloadData: async () => {
        await Promise.all(Object.values(this.catalog.catalogs).map((store) => store.load()));
      },
    });
    ({ server: this.server } = createHttpServer({
      logger: this.logger,
      auth,
      maintenance: this.maintenance,
      hub: this.hub,
      hosts: { bindHost: config.host, allowed: config.allowedHosts },
      tls: config.tls,
      greeting: () => ({ version: config.version, engine: engineMessage(this.engine.state), maintenance: this.maintenance.active, time_zone: STUDIO_TIME_ZONE }),
      routers: [
        healthRoutes({ version: config.version, startedAt: this.startedAt, engineStatus }),
        authRoutes({ auth }),
        eventsRoutes(this.events),
        workflowsRoutes(this.workflows, uploads),
        workflowImportRoutes(
          new WorkflowImportService({
            dir: config.paths.workflows,
            objectInfo: () => this.workflows.objectInfo(),
            nodeMap: nodeMapLoader(path.join(SHIPPED_ROOT, 'resources', 'node-packages.json')),
            catalogDest: (file) => this.catalogDest(file),
          }),
          uploads,
        ),
        runRoutes(this.runner, queries, uploads),
        jobsRoutes({ queries, runner: this.runner, jobs: this.jobs, dirs: { input: config.paths.assetsInput, output: config.paths.assetsOutput } }),
        engineRoutes(this.engineClient, this.sharedFolders),
        ...this.catalog.routers,
        ...this.assets.routers,
        ...this.modelhub.routers,
        ...this.presets.routers,
        ...llm.routers,
        ...chatbot.routers,
        ...this.system.routers,
        nodesRoutes({
          objectInfo: () => this.workflows.objectInfo(),
          installer: this.nodeInstaller(),
          engineMode: config.engine.mode,
          restartEngine: () => this.engine.restart(),
        }),
      ],
      storage: new StorageFaults({
        dataDir: config.paths.root,
        dbFile: config.paths.dbFile,
        onFault: (fault, detail) =>
          fault.kind === 'disk_full'
            ? this.events.emit('system.disk_full', 'warning', detail, { code: fault.code })
            : this.events.emit('system.database', 'error', detail, { code: fault.code, file: config.paths.dbFile }),
      }),
      pageRouters: [rendererRoutes({ distDir: path.join(APP_ROOT, 'renderer', 'dist'), fallback: homeRoutes({ version: config.version, engineStatus }) })],
    }));
  }

  /** Build a Studio: data directory, database and services, nothing listening yet. */
  static create(config: Readonly<Config>, options: StudioOptions = {}): Studio {
    return new Studio(config, options);
  }

  /** The port actually bound (useful with STUDIO_PORT=0). */
  get port(): number {
    return (this.server.address() as AddressInfo | null)?.port ?? this.config.port;
  }

  /**
   * The local URL of the UI, for Studio's own clients (the desktop window, the chat bot): loopback
   * when Studio listens on every interface, else the one address it actually bound.
   */
  get url(): string {
    const bound = (this.server.address() as AddressInfo | null)?.address ?? '127.0.0.1';
    const host = bound === '0.0.0.0' || bound === '::' ? '127.0.0.1' : bound.includes(':') ? `[${bound}]` : bound;
    return `${this.config.tls ? 'https' : 'http'}://${host}:${this.port}`;
  }

  /**
   * A session cookie value minted in-process for the desktop window: it never goes through the
   * public login route, so a local flood of wrong keys cannot lock the owner out of their window.
   */
  mintSession(): string {
    return this.signer.issue();
  }

  /** Listen, announce, then start the engine in the background (its state is visible as it goes). */
  async start(): Promise<void> {
    await this.seedData();
    this.unsubscribers.push(this.events.subscribe((event) => this.hub.broadcast('event', event)));
    if (this.config.llm.gpuPolicy === 'yield') {
      // Park the LLM server while image jobs hold the GPU; bring it back when none is left.
      this.unsubscribers.push(this.lifecycle.subscribe(() => this.llm.engineQueue(this.lifecycle.activeCount() > 0)));
    }
    let lastStatus = this.engine.state.status;
    this.unsubscribers.push(
      this.engine.onStateChange((state) => {
        this.hub.broadcast('engine.state', engineMessage(state));
        if (state.status === lastStatus) return;
        if (state.status === 'running') this.onEngineUp();
        else if (lastStatus === 'running') {
          this.reconciler.markPending();
          this.sharedFolders.forget();
        }
        lastStatus = state.status;
        if (state.status === 'crashed') {
          this.events.emit('engine.crashed', 'error', `The engine crashed and was not restarted: ${state.lastError ?? 'unknown error'}`, {
            mode: state.mode,
            restarts: state.restarts,
            stderr_tail: state.stderrTail.slice(-10),
          });
        } else {
          // A restart after the engine died is a crash the user should see, not routine news.
          const died = state.status === 'restarting' && state.lastError !== null;
          const severity = state.status === 'unreachable' || died ? 'warning' : 'info';
          const message = died ? `The engine crashed (${state.lastError}); restarting it` : `Engine ${state.status}`;
          this.events.emit('engine.state', severity, message, { mode: state.mode, status: state.status });
        }
      }),
    );

    // A reconnect may mean an engine restarted unnoticed (perhaps with other folders): check again.
    this.unsubscribers.push(
      this.engineSocket.onReconnect(() => {
        if (this.engine.state.status === 'running') this.probeSharedFolders();
      }),
    );

    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.config.port, this.config.host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.events.emit('system.backend.started', 'info', `Studio ${this.config.version} started on port ${this.port}`, {
      version: this.config.version,
      port: this.port,
      host: this.config.host,
      engine_mode: this.config.engine.mode,
    });
    if (this.config.loopbackReason) {
      const why =
        this.config.loopbackReason === 'default-key'
          ? 'Studio uses the built-in API key'
          : `API_KEY is shorter than ${MIN_LAN_KEY_LENGTH} characters, too short to expose on a network`;
      this.events.emit(
        'system.security',
        'warning',
        `${why}, so it listens on 127.0.0.1 only. To open LAN access, set API_KEY to a random secret of at least ` +
          `${MIN_LAN_KEY_LENGTH} characters (and STUDIO_HOST if 0.0.0.0 is not wanted) and restart Studio.`,
        { host: this.config.host, requested_host: this.config.requestedHost, reason: this.config.loopbackReason },
      );
    }
    await this.catalog.start();
    await this.modelhub.start();
    this.monitor.start();
    // After listen: the bot calls Studio's own HTTP API.
    await this.chatbot.autoStart();
    this.system.start();
    if (this.options.startEngine !== false) {
      this.engineSocket.start();
      this.engine.start().catch((err: unknown) => this.logger.error('engine did not start', err));
    }
  }

  /** Copy the shipped workflows and catalogs into the data directory on first boot; load catalogs. */
  private async seedData(): Promise<void> {
    const seeded = await seedWorkflows(path.join(SHIPPED_ROOT, 'workflows'), this.config.paths.workflows);
    if (seeded.seeded) this.logger.info(`seeded ${seeded.copied.length} workflow(s) into ${this.config.paths.workflows}`);
    await seedCatalogs(path.join(SHIPPED_ROOT, 'resources', 'catalogs'), this.config.paths.catalogs);
    for (const [kind, store] of Object.entries(this.catalogs)) {
      await store.load().catch((err: unknown) => this.logger.error(`catalog ${kind} could not be loaded`, err));
    }
    await this.presets.start().catch((err: unknown) => this.logger.error('the saved_prompts mirror could not be rebuilt from the presets folder', err));
  }

  /** An input uploaded to an engine whose input folder is its own: a copy for Studio's listings. */
  private async keepInputCopy(tmpFile: string, storedName: string): Promise<void> {
    if (this.sharedFolders.folders.includes('input')) return;
    const root = this.config.paths.assetsInput;
    const target = path.resolve(root, storedName);
    if (!target.startsWith(root + path.sep)) return;
    await fsp.mkdir(path.dirname(target), { recursive: true });
    await fsp.copyFile(tmpFile, `${target}.part`);
    await fsp.rename(`${target}.part`, target);
  }

  /**
   * Remove an input from Studio's input folder: the engine's own when it is shared (the engine has
   * no delete route), else Studio's copy; an unshared engine folder keeps its file.
   */
  private async removeInput(storedName: string): Promise<void> {
    const root = this.config.paths.assetsInput;
    const target = path.resolve(root, storedName);
    if (target.startsWith(root + path.sep)) await fsp.rm(target, { force: true });
  }

  /** Node package installs into the engine's `custom_nodes` (the stand-in's lives in the data dir). */
  private nodeInstaller(): NodeInstallService {
    const { engine, paths } = this.config;
    const customNodesDir = engine.dir ? path.join(engine.dir, 'custom_nodes') : engine.mode === 'standin' ? path.join(paths.engine, 'custom_nodes') : null;
    return new NodeInstallService({
      target: { customNodesDir, python: engine.python },
      env: this.config.childEnv,
      timeouts: this.config.nodeInstall,
      scratchDir: path.join(paths.root, 'tmp'),
      events: this.events,
      log: (level, message) => this.catalog.activity.add(level, message),
    });
  }

  /** The `dest` folder the catalogs give a model file. */
  private catalogDest(file: string): string | undefined {
    for (const store of [this.catalogs.models, this.catalogs.loras]) {
      if (store.isLoaded()) {
        const hit = store.findEntry(file);
        if (hit) return hit.entry.dest;
      }
    }
    return undefined;
  }

  /** The engine (re)started: its node list may have changed, and unfinished jobs need checking. */
  private onEngineUp(): void {
    this.workflows.invalidateNodes();
    this.probeSharedFolders();
    // The socket may sit in a backoff of several seconds; the engine answers now, so connect now.
    this.engineSocket.retryNow();
    void this.reconciler.runIfPending();
  }

  private probeSharedFolders(): void {
    this.sharedFolders.probe().catch((err: unknown) => this.logger.warn(`shared folder probe failed: ${String(err)}`));
  }

  /** Resolves when the engine answers (or rejects after `timeoutMs`). */
  async engineReady(timeoutMs = 30_000): Promise<void> {
    if (this.engine.state.status === 'running') return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`engine not ready after ${timeoutMs} ms (status ${this.engine.state.status})`));
      }, timeoutMs);
      const off = this.engine.onStateChange((state) => {
        if (state.status === 'running') {
          clearTimeout(timer);
          off();
          resolve();
        }
      });
    });
  }

  /** Stop accepting, close sockets, stop children, checkpoint the WAL. Safe to call twice. */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private async shutdown(): Promise<void> {
    this.logger.info('Studio is stopping');
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    this.hub.close();
    this.monitor.stop();
    this.sharedFolders.stop();
    this.assets.stop();
    await withDeadline(this.chatbot.stop(), 5_000, () => this.logger.warn('chat bot did not stop in time'));
    this.system.stop();
    await withDeadline(this.llm.close(), 6_000, () => this.logger.warn('LLM server did not stop in time'));
    await withDeadline(this.modelhub.stop(), 5_000, () => this.logger.warn('gallery fetches did not stop in time'));
    await withDeadline(this.catalog.stop(), 5_000, () => this.logger.warn('downloads did not stop in time'));
    await withDeadline(this.engineSocket.stop(), 3_000, () => this.logger.warn('engine socket did not close in time'));
    await withDeadline(this.engine.stop(), 15_000, () => this.logger.warn('engine did not stop in time'));
    // In-flight requests get a moment to finish; then every connection is cut.
    await withDeadline(closed, 3_000, () => this.server.closeAllConnections());
    for (const off of this.unsubscribers) off();
    this.events.close();
    try {
      checkpoint(this.db);
    } catch (err) {
      this.logger.warn('WAL checkpoint failed', err);
    }
    this.db.close();
    this.logger.info('Studio stopped');
  }
}


async function withDeadline(work: Promise<unknown>, ms: number, onTimeout: () => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)));
  const result = await Promise.race([work.then(() => 'done' as const, () => 'done' as const), deadline]);
  clearTimeout(timer);
  if (result === 'timeout') onTimeout();
}

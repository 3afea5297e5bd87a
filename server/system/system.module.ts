/**
 * Wiring of the system capability (status, telemetry, settings and secrets, update, restart)
 * behind one factory, so the composition root constructs it, mounts its routers and starts and
 * stops it.
 */
import path from 'node:path';
import type { Config } from '../config.js';
import { checkpoint, type Db } from '../db/database.js';
import type { WsHub } from '../http/ws-hub.js';
import type { Logger } from '../logging.js';
import type { StudioModule } from '../module.js';
import { announceStart, reportMigrations } from './startup-events.js';
import type { EventBus } from '../events/event-bus.js';
import type { BotControl } from './bot-control.js';
import { EnvSettingsService, type KeyVerdict } from './env-settings.service.js';
import { Secrets } from './secrets.store.js';
import { SettingsStore } from '../db/settings.store.js';
import type { Authenticator } from '../http/authenticator.js';
import type { LocalVersionPaths } from './local-versions.js';
import { GitRepo } from './git-repo.js';
import { RestartService } from './restart.service.js';
import { StatusService } from './status.service.js';
import { UpdateRepository } from './update-repository.js';
import { UpdateService } from './update.service.js';
import { systemRoutes, type DesktopUpdates } from './system.routes.js';
import { TelemetryService } from './telemetry.service.js';
import { FirstRunService } from './first-run.service.js';
import { lanUrls } from './lan-addresses.js';
import type { SignInLog } from '../http/sign-in-log.js';

export interface SystemModuleDeps {
  config: Readonly<Config>;
  db: Db;
  logger: Logger;
  hub: WsHub;
  startedAt: number;
  engineStatus: () => string;
  nodePackages: () => Promise<number>;
  modelsPresence: () => { count: number; present: number };
  bot: BotControl;
  events: EventBus;
  secrets: Secrets;
  /** The key check, through the login limiter (reveal asks it a second time). */
  auth: Pick<Authenticator, 'checkKey'>;
  maintenance: { enable(): void; disable(): void };
  /** Replace the running Studio (headless re-exec, Electron relaunch); null when it cannot. */
  relaunch: (() => void | Promise<void>) | null;
  /** Reload the catalogs kept in memory after an update or sync replaced their files. */
  reloadData: () => Promise<void>;
  /** The desktop app's own updater when the desktop app runs Studio; null headless (git update). */
  desktopUpdates: DesktopUpdates | null;
  /** Which devices signed in (the first-run guide's phone step). */
  signIns: Pick<SignInLog, 'signedInElsewhere'>;
}

export interface SystemModule extends StudioModule {
  restart: RestartService;
  /** Studio listens on `port`: say so in the event log, and why it stays on loopback if it does. */
  announce(port: number): void;
}

/** The editable variables in force: the environment's values, overlaid with the ones set in settings. */
export function createSecrets(db: Db, config: Readonly<Config>): Secrets {
  return new Secrets(new SettingsStore(db), {
    API_KEY: config.apiKey,
    MODELHUB_API_KEY: config.tokens.modelhubApiKey,
    HUB_TOKEN: config.tokens.hubToken,
    CHATBOT_BOT_TOKEN: config.tokens.chatbotBotToken,
    CHATBOT_BOT_NAME: config.tokens.chatbotBotName,
    REPO_URL: config.urls.repo,
  });
}

/** Where the installed versions are read from. */
function versionPaths(config: Readonly<Config>): LocalVersionPaths {
  return {
    versionFile: path.join(config.system.appDir, 'resources', 'version.json'),
    catalogsDir: config.paths.catalogs,
    workflowsDir: config.paths.workflows,
  };
}

export function createSystemModule(deps: SystemModuleDeps): SystemModule {
  const { config } = deps;
  const telemetry = new TelemetryService({
    cgroupRoot: config.system.cgroupRoot,
    nvidiaSmi: config.system.nvidiaSmi,
    env: config.childEnv,
    dataDir: config.paths.root,
    sampleMs: config.system.telemetrySampleMs,
    logger: deps.logger,
    onSample: (sample) => deps.hub.broadcast('telemetry.sample', sample),
  });
  const status = new StatusService({
    appVersion: config.version,
    repoUrl: () => deps.secrets.get('REPO_URL'),
    repoUrlSource: () => deps.secrets.source('REPO_URL'),
    versionPaths: versionPaths(config),
    db: deps.db,
    dbFile: config.paths.dbFile,
    devMode: config.devMode,
    engineStatus: deps.engineStatus,
    nodePackages: deps.nodePackages,
    modelsPresence: deps.modelsPresence,
    disk: () => telemetry.diskReading(),
    bot: deps.bot,
  });
  const envSettings = new EnvSettingsService({
    secrets: deps.secrets,
    reportedEnv: config.reportedEnv,
    readonlyValues: { STUDIO_DIR: config.paths.root, STUDIO_APP_DIR: config.system.appDir, STUDIO_VERSION: config.version },
    events: deps.events,
    bot: deps.bot,
    checkKey: (address, candidate): KeyVerdict => {
      const result = deps.auth.checkKey(address, candidate);
      return result.kind === 'key' ? { kind: 'ok' } : result.kind === 'throttled' ? result : { kind: 'bad' };
    },
    signOutEverywhere: () => deps.hub.disconnectAll(4001, 'The API key changed: sign in again'),
  });
  const restart = new RestartService({ checkpoint: () => checkpoint(deps.db), relaunch: deps.relaunch, events: deps.events, logger: deps.logger });
  const update = new UpdateService({
    repo: new GitRepo({ dir: config.paths.repo, url: () => deps.secrets.get('REPO_URL'), env: config.childEnv }),
    appDir: config.system.appDir,
    versionPaths: versionPaths(config),
    appVersion: config.version,
    maintenance: deps.maintenance,
    events: deps.events,
    logger: deps.logger,
    reloadData: deps.reloadData,
    scheduleRestart: (delayMs) => restart.schedule(delayMs, 'update applied'),
  });
  // The port bound is known once Studio listens (STUDIO_PORT=0 picks one).
  let boundPort = config.port;
  const firstRun = new FirstRunService({
    settings: new SettingsStore(deps.db),
    lan: () => lanUrls({ host: config.host, port: boundPort, tls: config.tls !== null, loopbackReason: config.loopbackReason }),
    signedInElsewhere: (device) => deps.signIns.signedInElsewhere(device),
  });
  return {
    name: 'system',
    routers: [
      systemRoutes({
        version: config.version,
        startedAt: deps.startedAt,
        engineStatus: deps.engineStatus,
        status,
        telemetry,
        restart,
        envSettings,
        update,
        repository: new UpdateRepository({ secrets: deps.secrets, events: deps.events }),
        desktop: deps.desktopUpdates,
        repoConfigured: () => deps.secrets.get('REPO_URL') !== null,
        extensionDir: path.join(config.system.appDir, 'resources', 'browser-extension'),
        firstRun,
      }),
    ],
    restart,
    // Which schema migrations opening the database applied during this boot.
    prepare: async () => void reportMigrations(deps.db, deps.events, deps.startedAt),
    start: () => telemetry.start(),
    stop: () => telemetry.stop(),
    announce: (port) => {
      boundPort = port;
      announceStart(config, deps.events, port);
    },
  };
}

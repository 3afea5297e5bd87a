/**
 * The dashboard object of `GET /api/admin/system/status` (spec "System status object"), wire
 * names included (`comfyui`, `telegram_bot`). Everything is read when asked; nothing is stored.
 */
import type { Db } from '../db/database.js';
import type { BotControl } from './bot-control.js';
import { COMPONENT_NAMES, type ComponentName, type ComponentStatus, type RepoUrlSource, type StatusTable, type SystemStatus } from '../contracts/system.contract.js';
import { readLocalVersions, type LocalVersionPaths } from './local-versions.js';
import type { DiskReading } from './host-metrics.js';

export interface StatusDeps {
  appVersion: string;
  /** Live: the repository can be set at runtime. */
  repoUrl: () => string | null;
  repoUrlSource: () => RepoUrlSource;
  versionPaths: LocalVersionPaths;
  db: Db;
  /** The database file (DEV_MODE shows it as the browser URL). */
  dbFile: string;
  devMode: boolean;
  /** The engine supervisor's status word. */
  engineStatus: () => string;
  /** Node packages the engine has loaded (0 when it cannot be asked). */
  nodePackages: () => Promise<number>;
  /** Entries of the models catalog and how many of them are on disk. */
  modelsPresence: () => { count: number; present: number };
  disk: () => Promise<DiskReading>;
  bot: BotControl;
}

const TABLES: readonly StatusTable[] = ['jobs', 'events', 'settings', 'saved_prompts'];

export class StatusService {
  constructor(private readonly deps: StatusDeps) {}

  /** The whole dashboard object. */
  async status(): Promise<SystemStatus> {
    const d = this.deps;
    const [local, packages, disk] = await Promise.all([readLocalVersions(d.versionPaths, d.appVersion), d.nodePackages().catch(() => 0), d.disk()]);
    const components = {} as Record<ComponentName, ComponentStatus>;
    for (const name of COMPONENT_NAMES) {
      const entry = local.summary.components[name];
      components[name] = { version: entry?.version ?? null, date: entry?.date ?? null, status: local.missing.has(name) ? 'missing' : 'ok' };
    }
    // The runtime (Node, Electron, native modules) comes with the installer, never from git.
    components.runtime.updatable = false;
    Object.assign(components.models, d.modelsPresence());
    components.workflows.count = local.workflowCount;
    return {
      app_version: local.summary.app_version,
      date: local.file?.date ?? '',
      repo_url: d.repoUrl(),
      repo_url_source: d.repoUrlSource(),
      runtime_version: local.runtimeVersion,
      min_runtime: local.summary.min_runtime,
      components,
      comfyui: { status: engineWord(d.engineStatus()) },
      nodes: { total_packages: packages },
      disk: { total_bytes: disk.total, used_bytes: disk.used, free_bytes: disk.free },
      database: { tables: this.rowCounts(), browser_url: d.devMode ? `file://${d.dbFile}` : null },
      telegram_bot: d.bot.status(),
    };
  }

  private rowCounts(): Record<StatusTable, number> {
    const out = {} as Record<StatusTable, number>;
    // Table names come from the constant above, never from a request.
    for (const table of TABLES) out[table] = (this.deps.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    return out;
  }
}

/** The engine supervisor's states folded onto the spec's three words. */
function engineWord(status: string): 'running' | 'error' | 'unreachable' {
  if (status === 'running') return 'running';
  if (status === 'crashed') return 'error';
  return 'unreachable';
}

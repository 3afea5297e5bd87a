/**
 * The system capability's wire shapes (`/api/admin/system/`, settings/env, update, telemetry) and
 * the `version.json` format that update reads and its answer echoes.
 */
import { z } from 'zod';

export interface EnvEntry {
  key: string;
  value: string;
  sensitive: boolean;
  set: boolean;
  default: string | null;
  description: string;
  editable: boolean;
}

export interface EnvGroup {
  id: string;
  label: string;
  vars: EnvEntry[];
}

export interface ComponentStatus {
  version: string | number | null;
  date: string | null;
  /** `ok` when its version source was read, `missing` when not. */
  status: 'ok' | 'missing';
  updatable?: boolean;
  count?: number;
  present?: number;
}

/** The tables whose row counts the status shows. */
export type StatusTable = 'jobs' | 'events' | 'settings' | 'saved_prompts';

export interface SystemStatus {
  app_version: string;
  date: string;
  repo_url: string | null;
  /** `settings`: set on the System page (it wins over the environment); `environment`: `REPO_URL` at start. */
  repo_url_source: RepoUrlSource;
  runtime_version: number;
  min_runtime: number;
  components: Record<ComponentName, ComponentStatus>;
  comfyui: { status: 'running' | 'error' | 'unreachable' };
  nodes: { total_packages: number };
  disk: { total_bytes: number; used_bytes: number; free_bytes: number };
  database: { tables: Record<StatusTable, number>; browser_url: string | null };
  telegram_bot: BotStatus;
}

export interface Telemetry {
  gpu: GpuReading | null;
  cpu_percent: number;
  ram_total: number;
  ram_used: number;
  ram_percent: number;
  disk_total: number;
  disk_used: number;
  disk_percent: number;
}

/** One point of the history: the telemetry object and when it was taken. */
export type TelemetrySample = Telemetry & { timestamp: string };

export type UpdateResult =
  | { updated: UpdatableComponent[]; restart_needed: boolean; message: string; debug: { local_version_json: VersionFile | null; remote_version_json: VersionFile } }
  | { updated: []; restart_needed: false; blocked: true; message: string; remote_min_runtime: number; local_runtime: number };

/** The versions as remote-version reports them (`{app_version, min_runtime, components}`). */
export interface VersionSummary {
  app_version: string;
  min_runtime: number;
  components: Partial<Record<ComponentName, ComponentVersion>>;
}

/** The chat bot's state in the status block (`telegram_bot` on the wire). */
export interface BotStatus {
  running: boolean;
  name: string | null;
}

export interface GpuReading {
  name: string;
  vram_total: number;
  vram_used: number;
  vram_percent: number;
  util_percent: number;
  temp_c: number;
}

export const COMPONENT_NAMES = ['runtime', 'backend', 'frontend', 'models', 'loras', 'llm_models', 'workflows'] as const;

export type ComponentName = (typeof COMPONENT_NAMES)[number];

/** Components an update may copy (`runtime` comes with the installer and is never updated). */
export const UPDATABLE_COMPONENTS = ['backend', 'frontend', 'models', 'loras', 'llm_models', 'workflows'] as const;

export type UpdatableComponent = (typeof UPDATABLE_COMPONENTS)[number];

const componentSchema = z.looseObject({ version: z.union([z.string(), z.number()]), date: z.string().default('') });
export type ComponentVersion = z.infer<typeof componentSchema>;

export const versionFileSchema = z.looseObject({
  app_version: z.string(),
  date: z.string().default(''),
  min_runtime: z.number().int().nonnegative().default(0),
  runtime_version: z.number().int().nonnegative().optional(),
  components: z.record(z.string(), componentSchema).default({}),
});

export type VersionFile = z.infer<typeof versionFileSchema>;

export const envPutBody = z.object({ key: z.string().min(1), value: z.string() });

// The spec leaves the field name open; `api_key` matches the login form.
export const revealBody = z.object({ api_key: z.string() });

/** Where the update repository in force comes from. */
export type RepoUrlSource = 'settings' | 'environment' | null;

/** `PUT /api/admin/system/update-repository`: an `https://` git URL, or `""` to clear it. */
export const updateRepositoryBody = z.object({ url: z.string({ error: 'url is required (an https:// git URL, or "" to clear it)' }).max(1024, 'url must be at most 1024 characters') });

/** Its answer: the repository in force and where it comes from. */
export interface UpdateRepositoryAnswer {
  repo_url: string | null;
  source: RepoUrlSource;
}

export const updateBody = z.object({ skip_components: z.array(z.string()).optional() });

/**
 * The installed desktop app's own updater (electron-updater). `off`: no feed configured, or not a
 * packaged app (`reason` says which); otherwise the last check's or download's state.
 */
export interface DesktopUpdateStatus {
  status: 'off' | 'idle' | 'checking' | 'available' | 'not-available' | 'downloading' | 'downloaded' | 'error';
  reason: string | null;
  current_version: string;
  /** The newer version the feed offers (available, downloading, downloaded). */
  version: string | null;
  feed_url: string | null;
  /** While downloading: percent 0–100 and bytes. */
  progress: { percent: number; transferred: number; total: number } | null;
  error: string | null;
  checked_at: string | null;
}

/**
 * `GET /api/admin/system/app-update`: which updater applies to this installation. `desktop`: the
 * packaged app replaces itself (electron-updater, installed on quit); `git`: the backend's own update
 * from `REPO_URL` (`/system/remote-version`, `/system/update`), for headless installs.
 */
export interface AppUpdateInfo {
  channel: 'desktop' | 'git';
  desktop: DesktopUpdateStatus | null;
  git: { repo_configured: boolean };
}

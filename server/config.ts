/**
 * The only reader of the environment. Everything else receives the typed, frozen `Config`
 * built here, so tests can build one from a plain object and nothing reads `process.env` behind
 * our back.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { shellWords } from './engine/shell-words.js';
import { childEnvironment } from './process/child-env.js';

/** How Studio gets its engine: start the stand-in, start a real one, or connect to one that runs. */
export type EngineMode = 'standin' | 'managed' | 'external';

/** The built-in weak key. While it is in use Studio listens on loopback only. */
export const DEFAULT_API_KEY = 'studio-local';

/** A key shorter than this keeps Studio on loopback: it could be guessed over the LAN. */
export const MIN_LAN_KEY_LENGTH = 16;

/** Where the project's code lives (package.json, dist/; inside app.asar when packaged). */
export const APP_ROOT = findAppRoot(path.dirname(fileURLToPath(import.meta.url)));

/**
 * Where the shipped `workflows/` and `resources/` live: beside the code in a checkout, and in
 * Electron's resources folder in a packaged app (electron-builder's extraResources).
 */
export const SHIPPED_ROOT = findShippedRoot();

export interface DataPaths {
  root: string;
  sessionSecret: string;
  db: string;
  dbFile: string;
  eventsFile: string;
  assetsInput: string;
  assetsOutput: string;
  jobs: string;
  workflows: string;
  catalogs: string;
  models: string;
  llm: string;
  llmModels: string;
  llmConfig: string;
  presets: string;
  gallery: string;
  logs: string;
  engine: string;
  repo: string;
}

export interface Config {
  version: string;
  apiKey: string;
  apiKeyIsDefault: boolean;
  /** The address Studio binds to: 127.0.0.1 while the weak default key is in use. */
  host: string;
  /** What STUDIO_HOST asked for (default 0.0.0.0), kept to explain a loopback-only bind. */
  requestedHost: string;
  /** Why Studio stays on loopback although another host was asked for (weak key), or null. */
  loopbackReason: 'default-key' | 'short-key' | null;
  /** Extra Host names a browser may use to reach Studio (STUDIO_ALLOWED_HOSTS), lower case. */
  allowedHosts: readonly string[];
  /** PEM files that make Studio serve HTTPS/WSS (STUDIO_TLS_CERT + STUDIO_TLS_KEY), or null. */
  tls: { cert: string; key: string } | null;
  port: number;
  engine: {
    mode: EngineMode;
    /** Why this mode was chosen, for the startup log. */
    modeReason: string;
    host: string;
    port: number;
    dir: string | null;
    python: string;
    standinStepMs: number;
    /** How long the stand-in takes for a node that reports no steps. */
    standinNodeMs: number;
    /** `--object-info` for the stand-in: serve a real node dump instead of the built-in set. */
    standinObjectInfo: string | null;
    /** Sent with every prompt as `extra_data.preview_method` and given to a managed engine. */
    previewMethod: PreviewMethod;
    /** ENGINE_ARGS: extra flags for a managed engine, split shell-style. */
    extraArgs: readonly string[];
  };
  tokens: {
    modelhubApiKey: string | null;
    hubToken: string | null;
    chatbotBotToken: string | null;
    chatbotBotName: string | null;
  };
  urls: {
    modelhub: string;
    repohost: string;
    chatbotApi: string;
    repo: string | null;
  };
  llm: {
    binary: string;
    port: number;
    /** Stop an idle server after this many minutes (0: never); the next chat starts it again. */
    idleMinutes: number;
    /** `yield`: park the LLM server while image jobs run on the engine. */
    gpuPolicy: 'share' | 'yield';
    /** How long a starting server may answer 503 (loading the model) before start fails. */
    readyTimeoutMs: number;
  };
  /** Model hub gallery fetches: community images kept per model, pause between hub pages. */
  gallery: { communityLimit: number; pageDelayMs: number };
  /** Node package installs: per-step deadlines (spec Limits: clone 120 s, pip 300 s, install.py 300 s). */
  nodeInstall: { cloneTimeoutMs: number; pipTimeoutMs: number; scriptTimeoutMs: number };
  chatbot: {
    /** CHATBOT_ALLOWED_CHATS: the only chats the bot serves; empty means "chats that sent /key". */
    allowedChats: readonly number[];
    /** How long one getUpdates long poll waits on the platform (seconds). */
    pollTimeoutS: number;
  };
  /** System status, telemetry and self-update (tests point these at fakes). */
  system: {
    /** The cgroup filesystem read for the container's memory limit. */
    cgroupRoot: string;
    /** The GPU query program, looked up on the children's PATH. */
    nvidiaSmi: string;
    /** How often telemetry is sampled into the 30-minute history. */
    telemetrySampleMs: number;
    /** The installed code an update replaces (`server/`, `dist/server/`, `renderer/`, `resources/version.json`). */
    appDir: string;
  };
  /** The variables `GET /api/admin/settings/env` reports, as they were at boot (secrets included: never logged). */
  reportedEnv: Readonly<Record<string, string>>;
  devMode: boolean;
  paths: DataPaths;
  /** The environment children inherit (engine, LLM server): a copy taken here, once. */
  childEnv: Readonly<Record<string, string>>;
  /** Set when STUDIO_DIR was unset and the default could not be created. */
  studioDirFallbackFrom: string | null;
}

/** Options for `loadConfig`; tests inject the environment and skip the engine probe. */
export interface LoadConfigOptions {
  /** Probe whether an engine already answers on ENGINE_PORT (decides `external`). */
  probeEngine?: (host: string, port: number) => Promise<boolean>;
  /** Overrides the platform's user-data directory (used for the STUDIO_DIR fallback). */
  userDataDir?: string;
}

/** Read the environment once, resolve defaults and the engine mode, and freeze the result. */
export async function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  options: LoadConfigOptions = {},
): Promise<Readonly<Config>> {
  const apiKey = nonEmpty(env.API_KEY) ?? DEFAULT_API_KEY;
  const apiKeyIsDefault = apiKey === DEFAULT_API_KEY;
  const requestedHost = nonEmpty(env.STUDIO_HOST) ?? '0.0.0.0';
  const loopbackReason = apiKeyIsDefault ? 'default-key' : apiKey.length < MIN_LAN_KEY_LENGTH ? 'short-key' : null;
  const tlsCert = nonEmpty(env.STUDIO_TLS_CERT);
  const tlsKey = nonEmpty(env.STUDIO_TLS_KEY);
  if (Boolean(tlsCert) !== Boolean(tlsKey)) throw new ConfigError('STUDIO_TLS_CERT and STUDIO_TLS_KEY go together: set both or neither');
  const enginePort = intVar(env, 'ENGINE_PORT', 8188);
  const engineHost = '127.0.0.1';
  const engineDir = nonEmpty(env.ENGINE_DIR);
  const { studioDir, fallbackFrom } = resolveStudioDir(env, options.userDataDir);

  const explicitMode = nonEmpty(env.ENGINE_MODE);
  let mode: EngineMode;
  let modeReason: string;
  if (explicitMode) {
    if (explicitMode !== 'standin' && explicitMode !== 'managed' && explicitMode !== 'external') {
      throw new ConfigError(`ENGINE_MODE must be standin, managed or external (got "${explicitMode}")`);
    }
    mode = explicitMode;
    modeReason = 'ENGINE_MODE';
  } else if (engineDir) {
    mode = 'managed';
    modeReason = 'ENGINE_DIR is set';
  } else if (await (options.probeEngine ?? probeEngine)(engineHost, enginePort)) {
    mode = 'external';
    modeReason = `an engine already answers on port ${enginePort}`;
  } else {
    mode = 'standin';
    modeReason = 'no engine configured';
  }
  if (mode === 'managed' && !engineDir) throw new ConfigError('ENGINE_MODE=managed needs ENGINE_DIR');

  const config: Config = {
    version: readVersion(),
    apiKey,
    apiKeyIsDefault,
    host: loopbackReason ? '127.0.0.1' : requestedHost,
    requestedHost,
    loopbackReason,
    allowedHosts: (nonEmpty(env.STUDIO_ALLOWED_HOSTS) ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
    tls: tlsCert && tlsKey ? { cert: path.resolve(tlsCert), key: path.resolve(tlsKey) } : null,
    port: intVar(env, 'STUDIO_PORT', 8000),
    engine: {
      mode,
      modeReason,
      host: engineHost,
      port: enginePort,
      dir: engineDir ? path.resolve(engineDir) : null,
      python: nonEmpty(env.ENGINE_PYTHON) ?? 'python3',
      standinStepMs: intVar(env, 'STANDIN_STEP_MS', 300),
      standinNodeMs: intVar(env, 'STANDIN_NODE_MS', 50),
      standinObjectInfo: nonEmpty(env.STANDIN_OBJECT_INFO) ?? null,
      previewMethod: previewMethod(env.ENGINE_PREVIEW_METHOD),
      extraArgs: engineArgs(env.ENGINE_ARGS),
    },
    tokens: {
      modelhubApiKey: nonEmpty(env.MODELHUB_API_KEY) ?? null,
      hubToken: nonEmpty(env.HUB_TOKEN) ?? null,
      chatbotBotToken: nonEmpty(env.CHATBOT_BOT_TOKEN) ?? null,
      chatbotBotName: nonEmpty(env.CHATBOT_BOT_NAME) ?? null,
    },
    urls: {
      modelhub: baseUrl(env, 'MODELHUB_BASE_URL', 'https://civitai.com'),
      repohost: baseUrl(env, 'REPOHOST_BASE_URL', 'https://huggingface.co'),
      chatbotApi: baseUrl(env, 'CHATBOT_API_BASE_URL', 'https://api.telegram.org'),
      repo: nonEmpty(env.REPO_URL) ?? null,
    },
    llm: {
      binary: nonEmpty(env.LLM_BINARY) ?? 'llama-server',
      port: intVar(env, 'LLM_PORT', 8080),
      idleMinutes: intVar(env, 'LLM_IDLE_MINUTES', 0),
      gpuPolicy: nonEmpty(env.LLM_GPU_POLICY) === 'yield' ? 'yield' : 'share',
      readyTimeoutMs: intVar(env, 'LLM_READY_TIMEOUT_S', 300) * 1000,
    },
    gallery: {
      communityLimit: intVar(env, 'GALLERY_COMMUNITY_LIMIT', 200),
      pageDelayMs: intVar(env, 'GALLERY_PAGE_DELAY_MS', 1000),
    },
    nodeInstall: {
      cloneTimeoutMs: intVar(env, 'NODES_CLONE_TIMEOUT_S', 120) * 1000,
      pipTimeoutMs: intVar(env, 'NODES_PIP_TIMEOUT_S', 300) * 1000,
      scriptTimeoutMs: intVar(env, 'NODES_SCRIPT_TIMEOUT_S', 300) * 1000,
    },
    chatbot: {
      allowedChats: chatIds(env.CHATBOT_ALLOWED_CHATS),
      // 0 would be short polling: a tight loop against the platform while nothing happens.
      pollTimeoutS: Math.max(1, Math.min(50, intVar(env, 'CHATBOT_POLL_TIMEOUT_S', 30))),
    },
    system: {
      cgroupRoot: nonEmpty(env.STUDIO_CGROUP_ROOT) ?? '/sys/fs/cgroup',
      nvidiaSmi: nonEmpty(env.STUDIO_NVIDIA_SMI) ?? 'nvidia-smi',
      telemetrySampleMs: Math.max(100, intVar(env, 'STUDIO_TELEMETRY_SAMPLE_MS', 5000)),
      // The shipped root: the checkout itself, or a packaged app's resources folder (version.json, the extension).
      appDir: path.resolve(nonEmpty(env.STUDIO_APP_DIR) ?? SHIPPED_ROOT),
    },
    reportedEnv: reportedEnv(env),
    devMode: nonEmpty(env.DEV_MODE) !== undefined,
    paths: dataPaths(studioDir),
    childEnv: childEnvironment(env),
    studioDirFallbackFrom: fallbackFrom,
  };
  return deepFreeze(config);
}

/** Hosting platforms whose own variables the settings page shows in a group of their own. */
export const PLATFORM_ENV_PREFIXES = ['RUNPOD_'] as const;

/** Every variable the README's table lists, plus the hosting platform's: what the settings page may show. */
function reportedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (typeof value !== 'string' || value.trim() === '') continue;
    const studio = /^(API_KEY|STUDIO_|ENGINE_|STANDIN_|MODELHUB_|HUB_TOKEN$|CHATBOT_|REPOHOST_|LLM_|NODES_|GALLERY_|REPO_URL$|DEV_MODE$)/.test(name);
    if (studio || PLATFORM_ENV_PREFIXES.some((prefix) => name.startsWith(prefix))) out[name] = value.trim();
  }
  return out;
}

/** The data directory layout under STUDIO_DIR (see the README). */
export function dataPaths(root: string): DataPaths {
  const p = (...parts: string[]) => path.join(root, ...parts);
  return {
    root,
    sessionSecret: p('.session_secret'),
    db: p('db'),
    dbFile: p('db', 'studio.db'),
    eventsFile: p('events.jsonl'),
    assetsInput: p('assets', 'input'),
    assetsOutput: p('assets', 'output'),
    jobs: p('jobs'),
    workflows: p('workflows'),
    catalogs: p('catalogs'),
    models: p('models'),
    llm: p('llm'),
    llmModels: p('llm', 'models'),
    llmConfig: p('llm', 'config.json'),
    presets: p('presets'),
    gallery: p('gallery'),
    logs: p('logs'),
    engine: p('engine'),
    repo: p('.repo'),
  };
}

/** The engine's sampler preview methods (`--preview-method`); its own default is none. */
export const PREVIEW_METHODS = ['none', 'auto', 'latent2rgb', 'taesd'] as const;
export type PreviewMethod = (typeof PREVIEW_METHODS)[number];

function previewMethod(raw: string | undefined): PreviewMethod {
  const value = nonEmpty(raw) ?? 'auto';
  if (!(PREVIEW_METHODS as readonly string[]).includes(value)) throw new ConfigError(`ENGINE_PREVIEW_METHOD must be one of ${PREVIEW_METHODS.join(', ')} (got "${value}")`);
  return value as PreviewMethod;
}

/** Chat ids are integers (negative for groups) of up to 52 significant bits, so a JS number holds them. */
function chatIds(raw: string | undefined): number[] {
  const ids: number[] = [];
  for (const part of (raw ?? '').split(',')) {
    const text = part.trim();
    if (!text) continue;
    const id = Number(text);
    if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(id)) throw new ConfigError(`CHATBOT_ALLOWED_CHATS must be a comma list of chat ids (got "${text}")`);
    ids.push(id);
  }
  return ids;
}

function engineArgs(raw: string | undefined): string[] {
  try {
    return shellWords(raw ?? '');
  } catch (err) {
    throw new ConfigError(`ENGINE_ARGS: ${(err as Error).message}`);
  }
}

/** A configuration the process cannot run with; main prints it and exits non-zero. */
export class ConfigError extends Error {}

function resolveStudioDir(env: NodeJS.ProcessEnv, userDataDir?: string): { studioDir: string; fallbackFrom: string | null } {
  const explicit = nonEmpty(env.STUDIO_DIR);
  if (explicit) return { studioDir: path.resolve(explicit), fallbackFrom: null };
  const preferred = '/workspace/studio';
  try {
    fs.mkdirSync(preferred, { recursive: true });
    fs.accessSync(preferred, fs.constants.W_OK);
    return { studioDir: preferred, fallbackFrom: null };
  } catch {
    return { studioDir: path.join(userDataDir ?? platformDataDir(env), 'studio'), fallbackFrom: preferred };
  }
}

/** The per-user application data directory of this platform. */
function platformDataDir(env: NodeJS.ProcessEnv): string {
  const home = os.homedir();
  if (process.platform === 'win32') return nonEmpty(env.APPDATA) ?? path.join(home, 'AppData', 'Roaming');
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Application Support');
  return nonEmpty(env.XDG_DATA_HOME) ?? path.join(home, '.local', 'share');
}

async function probeEngine(host: string, port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://${host}:${port}/system_stats`, { signal: AbortSignal.timeout(800) });
    return res.ok;
  } catch {
    return false;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function intVar(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new ConfigError(`${name} must be a non-negative integer (got "${raw}")`);
  return value;
}

function baseUrl(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = nonEmpty(env[name]) ?? fallback;
  try {
    return new URL(raw).toString().replace(/\/+$/, '');
  } catch {
    throw new ConfigError(`${name} must be an absolute URL (got "${raw}")`);
  }
}

function findAppRoot(start: string): string {
  let dir = start;
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return path.resolve(start, '..');
    dir = parent;
  }
}

function findShippedRoot(): string {
  const resourcesPath = (process as { resourcesPath?: string }).resourcesPath;
  if (resourcesPath && fs.existsSync(path.join(resourcesPath, 'workflows')) && fs.existsSync(path.join(resourcesPath, 'resources'))) {
    return resourcesPath;
  }
  return APP_ROOT;
}

function readVersion(): string {
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(APP_ROOT, 'package.json'), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

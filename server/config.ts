/**
 * The only reader of the environment. Everything else receives the typed, frozen `Config`
 * built here, so tests can build one from a plain object and nothing reads `process.env` behind
 * our back. Each variable is declared once, in `config/env-vars.ts`; this file turns their values
 * into the shape the services use. Its parts: `config/data-dir.ts` (STUDIO_DIR and its layout),
 * `config/app-root.ts` (where the code and the shipped files are), `config/engine-mode.ts`.
 */
import os from 'node:os';
import path from 'node:path';
import { childEnvironment } from './process/child-env.js';
import { SHIPPED_ROOT, readVersion } from './config/app-root.js';
import { ConfigError } from './config/config-error.js';
import { dataPaths, resolveStudioDir, type DataPaths } from './config/data-dir.js';
import { chooseEngineMode, probeEngine, type EngineMode, type EngineProbe, type PreviewMethod } from './config/engine-mode.js';
import { ownOrphan } from './process/child-record.js';
import { readEngineChoice } from './config/engine-choice.js';
import { DEFAULT_API_KEY } from './config/env-vars.js';
import { readEnv, reportedEnv } from './config/read-env.js';

export { APP_ROOT, SHIPPED_ROOT } from './config/app-root.js';
export { ConfigError } from './config/config-error.js';
export { dataPaths, type DataPaths } from './config/data-dir.js';
export { PREVIEW_METHODS, type EngineMode, type PreviewMethod } from './config/engine-mode.js';
export { DEFAULT_API_KEY } from './config/env-vars.js';

/** A key shorter than this keeps Studio on loopback: it could be guessed over the LAN. */
export const MIN_LAN_KEY_LENGTH = 16;

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
  /** STUDIO_ROLE: `agent` is a headless Studio that serves its engine to another Studio (no UI). */
  role: 'studio' | 'agent';
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
    /** ENGINE_ARGS: extra flags for a managed engine, split shell-style (the setup page's, when stored). */
    extraArgs: readonly string[];
    /** Model folders the engine reads beside Studio's (a found install's own `models/`, chosen on the setup page). */
    extraModelDirs: readonly string[];
    /** ENGINE_GPUS: one more managed engine per GPU index, on ENGINE_PORT + 1 + its place in the list. */
    gpus: readonly number[];
    /** ENGINE_POOL_PROBE_MS: health checks of the pool's engines Studio does not start. */
    poolProbeMs: number;
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
    /** The installed desktop app's update feed (electron-updater, generic provider); null: no checks. */
    desktopUpdates: string | null;
    /** The node type → package map imports download; null: off. */
    nodeMap: string | null;
  };
  /** Jobs: a running job silent this long (no engine message) is marked stalled; 0 never. */
  jobs: { stallMs: number; resumeAfterRestart: boolean; batchMaxCells: number };
  /** The engine's own API served by Studio (issue 44): forced on by `COMFY_API=on`; its own port. */
  comfyApi: { forcedOn: boolean; port: number | null };
  llm: {
    /** `LLM_BINARY` when set (it wins over the installed builds), else null. */
    binary: string | null;
    port: number;
    /** The llama.cpp release source (a GitHub-style releases API). */
    releasesUrl: string;
    /** Where "Build from source" builds (null: `llm/runtimes/source`). */
    sourceBuildDir: string | null;
    /** The most a runtime archive may unpack to. */
    maxUnpackBytes: number;
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
  /** The setup page: where engines are installed from, with what, and how long each step may take. */
  setup: {
    repoUrl: string;
    torchIndexUrl: string;
    packageIndexUrl: string;
    basePython: string;
    timeouts: { cloneMs: number; environmentMs: number; packagesMs: number; proveMs: number };
    /** The user's home (the usual install places are under it) and Windows' %APPDATA%. */
    home: string;
    appData: string | null;
  };
  nodeInstall: { cloneTimeoutMs: number; pipTimeoutMs: number; scriptTimeoutMs: number };
  /** The disk page's warning threshold. */
  disk: { warnFreeBytes: number };
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
  probeEngine?: EngineProbe;
}

/** The probe, except that the engine a previous Studio started (its orphan) is never taken for an external one. */
function notOwnOrphan(engineDir: string, probe: EngineProbe = probeEngine): EngineProbe {
  return async (host, port) => (ownOrphan(engineDir, port) ? false : probe(host, port));
}

/** Read the environment once, resolve defaults and the engine mode, and freeze the result. */
export async function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  options: LoadConfigOptions = {},
): Promise<Readonly<Config>> {
  const { values: v, given } = readEnv(env);
  const apiKey = v.API_KEY;
  const apiKeyIsDefault = apiKey === DEFAULT_API_KEY;
  const loopbackReason = apiKeyIsDefault ? 'default-key' : apiKey.length < MIN_LAN_KEY_LENGTH ? 'short-key' : null;
  if (Boolean(v.STUDIO_TLS_CERT) !== Boolean(v.STUDIO_TLS_KEY)) throw new ConfigError('STUDIO_TLS_CERT and STUDIO_TLS_KEY go together: set both or neither');
  const engineHost = '127.0.0.1';
  const { studioDir, fallbackFrom } = resolveStudioDir(given.has('STUDIO_DIR') ? v.STUDIO_DIR : null, v.STUDIO_DIR, env);
  // The engine chosen on the setup page, unless the environment names one itself.
  const choice = readEngineChoice(studioDir);
  const stored = v.ENGINE_MODE === 'automatic' && !v.ENGINE_DIR ? choice.current : null;
  const enginePort = choice.settings.port ?? v.ENGINE_PORT;
  const { mode, modeReason } = stored
    ? { mode: stored.mode, modeReason: `chosen on the setup page (${stored.version ?? stored.dir})` }
    : await chooseEngineMode(v.ENGINE_MODE, v.ENGINE_DIR, { host: engineHost, port: enginePort }, notOwnOrphan(dataPaths(studioDir).engine, options.probeEngine));

  const config: Config = {
    version: readVersion(),
    apiKey,
    apiKeyIsDefault,
    host: loopbackReason ? '127.0.0.1' : v.STUDIO_HOST,
    requestedHost: v.STUDIO_HOST,
    loopbackReason,
    allowedHosts: v.STUDIO_ALLOWED_HOSTS ?? [],
    tls: v.STUDIO_TLS_CERT && v.STUDIO_TLS_KEY ? { cert: v.STUDIO_TLS_CERT, key: v.STUDIO_TLS_KEY } : null,
    port: v.STUDIO_PORT,
    engine: {
      mode,
      modeReason,
      host: engineHost,
      port: enginePort,
      dir: stored?.mode === 'managed' ? stored.dir : v.ENGINE_DIR,
      python: stored?.mode === 'managed' ? stored.python : v.ENGINE_PYTHON,
      standinStepMs: v.STANDIN_STEP_MS,
      standinNodeMs: v.STANDIN_NODE_MS,
      standinObjectInfo: v.STANDIN_OBJECT_INFO,
      previewMethod: choice.settings.preview_method ?? v.ENGINE_PREVIEW_METHOD,
      extraArgs: choice.settings.extra_args ?? v.ENGINE_ARGS ?? [],
      extraModelDirs: stored?.extra_model_dirs ?? [],
      gpus: choice.settings.gpus ?? v.ENGINE_GPUS ?? [],
      poolProbeMs: v.ENGINE_POOL_PROBE_MS,
    },
    role: v.STUDIO_ROLE,
    tokens: {
      modelhubApiKey: v.MODELHUB_API_KEY,
      hubToken: v.HUB_TOKEN,
      chatbotBotToken: v.CHATBOT_BOT_TOKEN,
      chatbotBotName: v.CHATBOT_BOT_NAME,
    },
    urls: {
      modelhub: v.MODELHUB_BASE_URL,
      repohost: v.REPOHOST_BASE_URL,
      chatbotApi: v.CHATBOT_API_BASE_URL,
      repo: v.REPO_URL,
      desktopUpdates: v.DESKTOP_UPDATE_URL,
      nodeMap: v.NODE_MAP_URL,
    },
    jobs: { stallMs: Math.round(v.JOB_STALL_MINUTES * 60_000), resumeAfterRestart: v.QUEUE_RESUME_AFTER_RESTART === 'on', batchMaxCells: v.BATCH_MAX_CELLS },
    comfyApi: { forcedOn: v.COMFY_API === 'on', port: v.COMFY_API_PORT },
    llm: {
      binary: v.LLM_BINARY,
      port: v.LLM_PORT,
      releasesUrl: v.LLM_RELEASES_URL,
      sourceBuildDir: v.LLM_SOURCE_BUILD_DIR,
      maxUnpackBytes: v.LLM_RUNTIME_MAX_UNPACK_MB * 1024 * 1024,
      idleMinutes: v.LLM_IDLE_MINUTES,
      gpuPolicy: v.LLM_GPU_POLICY,
      readyTimeoutMs: v.LLM_READY_TIMEOUT_S * 1000,
    },
    gallery: {
      communityLimit: v.GALLERY_COMMUNITY_LIMIT,
      pageDelayMs: v.GALLERY_PAGE_DELAY_MS,
    },
    setup: {
      repoUrl: v.ENGINE_REPO_URL,
      torchIndexUrl: v.ENGINE_TORCH_INDEX_URL,
      packageIndexUrl: v.ENGINE_PACKAGE_INDEX_URL,
      basePython: v.ENGINE_INSTALL_PYTHON,
      timeouts: { cloneMs: v.ENGINE_CLONE_TIMEOUT_S * 1000, environmentMs: v.ENGINE_VENV_TIMEOUT_S * 1000, packagesMs: v.ENGINE_PIP_TIMEOUT_S * 1000, proveMs: v.ENGINE_PROVE_TIMEOUT_S * 1000 },
      home: env.HOME ?? env.USERPROFILE ?? os.homedir(),
      appData: env.APPDATA ?? null,
    },
    nodeInstall: {
      cloneTimeoutMs: v.NODES_CLONE_TIMEOUT_S * 1000,
      pipTimeoutMs: v.NODES_PIP_TIMEOUT_S * 1000,
      scriptTimeoutMs: v.NODES_SCRIPT_TIMEOUT_S * 1000,
    },
    disk: { warnFreeBytes: Math.round(v.DISK_WARN_FREE_GB * 1e9) },
    chatbot: {
      allowedChats: v.CHATBOT_ALLOWED_CHATS ?? [],
      pollTimeoutS: v.CHATBOT_POLL_TIMEOUT_S,
    },
    system: {
      cgroupRoot: v.STUDIO_CGROUP_ROOT,
      nvidiaSmi: v.STUDIO_NVIDIA_SMI,
      telemetrySampleMs: v.STUDIO_TELEMETRY_SAMPLE_MS,
      appDir: v.STUDIO_APP_DIR ?? path.resolve(SHIPPED_ROOT),
    },
    reportedEnv: reportedEnv(env),
    devMode: v.DEV_MODE ?? false,
    paths: dataPaths(studioDir),
    childEnv: childEnvironment(env),
    studioDirFallbackFrom: fallbackFrom,
  };
  return deepFreeze(config);
}

/** Freeze `value` and everything it holds (what is already frozen is not walked again). */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

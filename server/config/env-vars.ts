/**
 * Every environment variable Studio reads, declared once: its group on the settings page, its
 * default (as text, parsed like a set value, so what the page shows is what applies), its parser,
 * what it means, and whether it is secret or editable at runtime. `loadConfig` reads the
 * environment through this table, `GET /api/admin/settings/env` lists it, and a test holds the
 * README's table to it. A new variable is one entry here (plus its use in `loadConfig` and a row
 * in the README).
 */
import { ENGINE_MODE_CHOICES, PREVIEW_METHODS } from './engine-mode.js';
import { absolutePath, baseUrl, chatIds, hostList, integer, integerList, nonNegativeNumber, oneOf, presence, shellArgs, switchedBy, text, urlOrOff, type EnvParser } from './env-parsers.js';

/** The built-in weak key. While it is in use Studio listens on loopback only. */
export const DEFAULT_API_KEY = 'studio-local';

/** The settings page's groups of declared variables, in the order it shows them. */
export const ENV_GROUPS = [
  { id: 'auth', label: 'Authentication & API Tokens' },
  { id: 'config', label: 'Configuration (set in the environment, applied at start)' },
  { id: 'readonly', label: 'Read-only (this installation)' },
] as const;
export type EnvGroupId = (typeof ENV_GROUPS)[number]['id'];

/** The hosting platform's variables: shown in a group of their own, only when present. */
export const PLATFORM_GROUP = { id: 'platform', label: 'RunPod (hosting platform)', prefix: 'RUNPOD_' } as const;

/** One variable's declaration. */
export interface EnvVarSpec<T> {
  group: EnvGroupId;
  /** The value when unset, as text (null: none); it goes through `parse` like a set value. */
  default: string | null;
  parse: EnvParser<T>;
  /** What the settings page says about it (the README's row may say more). */
  description: string;
  /** Masked on the settings page, revealed only behind a second key check. */
  sensitive?: boolean;
  /** Changeable at runtime from the settings page (stored; wins over the environment). */
  editable?: boolean;
}

/** The table, in the settings page's order within each group. */
export const ENV_VARS = {
  API_KEY: { group: 'auth', default: DEFAULT_API_KEY, parse: text, description: 'Login secret and the value accepted in X-API-Key; changing it signs every session out', sensitive: true, editable: true },
  MODELHUB_API_KEY: { group: 'auth', default: null, parse: text, description: 'Model hub token (downloads, metadata)', sensitive: true, editable: true },
  HUB_TOKEN: { group: 'auth', default: null, parse: text, description: 'Repository host token (gated downloads)', sensitive: true, editable: true },
  CHATBOT_BOT_TOKEN: { group: 'auth', default: null, parse: text, description: 'Chat bot token; changing it restarts a running bot', sensitive: true, editable: true },
  CHATBOT_BOT_NAME: { group: 'auth', default: null, parse: text, description: 'Chat bot display name; changing it restarts a running bot', editable: true },

  STUDIO_PORT: { group: 'config', default: '8000', parse: integer(), description: "Studio's HTTP/WebSocket port" },
  STUDIO_HOST: { group: 'config', default: '0.0.0.0', parse: text, description: 'Bind address once a strong API_KEY is set' },
  STUDIO_ALLOWED_HOSTS: { group: 'config', default: null, parse: hostList, description: 'Extra Host names browsers may use' },
  STUDIO_TLS_CERT: { group: 'config', default: null, parse: absolutePath, description: 'PEM certificate for HTTPS' },
  STUDIO_TLS_KEY: { group: 'config', default: null, parse: absolutePath, description: 'PEM private key file for HTTPS (a path, not the key)' },
  ENGINE_PORT: { group: 'config', default: '8188', parse: integer(), description: "The engine's port" },
  ENGINE_MODE: { group: 'config', default: 'automatic', parse: oneOf(ENGINE_MODE_CHOICES), description: 'standin, managed or external' },
  ENGINE_DIR: { group: 'config', default: null, parse: absolutePath, description: 'An engine checkout to run as a supervised child' },
  ENGINE_PYTHON: { group: 'config', default: 'python3', parse: text, description: 'The Python that runs the engine' },
  ENGINE_ARGS: { group: 'config', default: null, parse: shellArgs, description: 'Extra flags for a managed engine' },
  ENGINE_GPUS: { group: 'config', default: null, parse: integerList, description: 'One managed engine per GPU of this box (e.g. 0,1): each its own port and CUDA_VISIBLE_DEVICES, sharing the model folders' },
  ENGINE_POOL_PROBE_MS: { group: 'config', default: '3000', parse: integer({ min: 50 }), description: 'How often the engines of the pool that Studio does not start are health-checked' },
  STUDIO_ROLE: { group: 'config', default: 'studio', parse: oneOf(['studio', 'agent'] as const), description: 'agent: a headless Studio another Studio uses as a remote engine (no UI)' },
  ENGINE_PREVIEW_METHOD: { group: 'config', default: 'auto', parse: oneOf(PREVIEW_METHODS), description: 'Sampler preview method' },
  ENGINE_REPO_URL: { group: 'config', default: 'https://github.com/comfyanonymous/ComfyUI', parse: text, description: 'Git repository the setup page installs and updates the engine from (a release tag of it)' },
  ENGINE_TORCH_INDEX_URL: { group: 'config', default: 'https://download.pytorch.org/whl', parse: baseUrl, description: "torch's package index; the build for the GPU is its subfolder (cu128, rocm6.2, cpu)" },
  ENGINE_PACKAGE_INDEX_URL: { group: 'config', default: 'https://pypi.org/simple', parse: baseUrl, description: "The package index (PyPI's simple API) for the engine's other requirements" },
  ENGINE_INSTALL_PYTHON: { group: 'config', default: 'python3', parse: text, description: "The Python (3.10 or newer, with venv) that makes a new engine's environment when uv is not on the machine" },
  ENGINE_CLONE_TIMEOUT_S: { group: 'config', default: '600', parse: integer({ min: 1 }), description: 'Engine install: deadline of the download (git clone)' },
  ENGINE_VENV_TIMEOUT_S: { group: 'config', default: '300', parse: integer({ min: 1 }), description: 'Engine install: deadline of making the Python environment' },
  ENGINE_PIP_TIMEOUT_S: { group: 'config', default: '3600', parse: integer({ min: 1 }), description: 'Engine install: deadline of each package step (torch, requirements, node packages)' },
  ENGINE_PROVE_TIMEOUT_S: { group: 'config', default: '600', parse: integer({ min: 1 }), description: 'How long a new engine may take to start and run the smoke prompt before Studio switches to it' },
  COMFY_API: { group: 'config', default: 'off', parse: oneOf(['on', 'off'] as const), description: "on: serve the engine's own API (its HTTP routes and /ws) under /comfy, behind Studio's keys, over Studio's queue and engine pool (the System page can turn it on too)" },
  COMFY_API_PORT: { group: 'config', default: null, parse: integer(), description: "A port of its own where the engine's API is served at the root, for clients that cannot take a path (e.g. /ws at the root)" },
  QUEUE_RESUME_AFTER_RESTART: { group: 'config', default: 'on', parse: oneOf(['on', 'off'] as const), description: 'on: each job a restart left unfinished (marked stalled) is retried at once, in the old queue order (retry_of names it)' },
  BATCH_MAX_CELLS: { group: 'config', default: '500', parse: integer({ min: 1 }), description: 'Most jobs one batch (grid, list, CSV) may make; a bigger one is refused (413) before anything is queued' },
  JOB_STALL_MINUTES: { group: 'config', default: '10', parse: nonNegativeNumber, description: 'Mark a running job stalled after this many minutes without progress from the engine (0: never)' },
  LLM_BINARY: { group: 'config', default: null, parse: text, description: 'The LLM server executable; when set it wins over the installed llama.cpp builds (unset: the active build, else llama-server on PATH)' },
  LLM_PORT: { group: 'config', default: '8080', parse: integer(), description: "The LLM server's port" },
  LLM_IDLE_MINUTES: { group: 'config', default: '0', parse: integer(), description: 'Stop an idle LLM server after this many minutes' },
  LLM_GPU_POLICY: { group: 'config', default: 'share', parse: switchedBy('yield', 'share'), description: 'yield: park the LLM server while image jobs run' },
  REPO_URL: { group: 'config', default: null, parse: text, description: 'Git repository Studio updates itself from; the System page may set it (stored, and it then wins), through its own route, not this table' },
  DESKTOP_UPDATE_URL: { group: 'config', default: null, parse: baseUrl, description: 'Update feed of the installed desktop app (latest*.yml and installers); unset: no update checks' },
  MODELHUB_BASE_URL: { group: 'config', default: 'https://civitai.com', parse: baseUrl, description: 'Model hub API base' },
  REPOHOST_BASE_URL: { group: 'config', default: 'https://huggingface.co', parse: baseUrl, description: 'Repository host base' },
  NODE_MAP_URL: { group: 'config', default: 'https://raw.githubusercontent.com/ltdrdata/ComfyUI-Manager/main/extension-node-map.json', parse: urlOrOff, description: 'Node type → package map imports download when they meet a node type Studio does not know (off: never)' },
  CHATBOT_API_BASE_URL: { group: 'config', default: 'https://api.telegram.org', parse: baseUrl, description: 'Chat platform bot API base' },
  LLM_READY_TIMEOUT_S: { group: 'config', default: '300', parse: integer(), description: 'How long a starting LLM server may keep loading its model' },
  LLM_RELEASES_URL: { group: 'config', default: 'https://api.github.com/repos/ggml-org/llama.cpp', parse: baseUrl, description: 'Where the llama.cpp builds are listed (a GitHub-style releases API)' },
  LLM_SOURCE_BUILD_DIR: { group: 'config', default: null, parse: absolutePath, description: 'Where "Build from source" builds llama-server (default: llm/runtimes/source in the data folder)' },
  LLM_RUNTIME_MAX_UNPACK_MB: { group: 'config', default: '8192', parse: integer(), description: 'The most a llama.cpp archive may unpack to' },
  NODES_CLONE_TIMEOUT_S: { group: 'config', default: '120', parse: integer(), description: 'Node package clone deadline' },
  NODES_PIP_TIMEOUT_S: { group: 'config', default: '300', parse: integer(), description: 'Node package dependency install deadline' },
  DISK_WARN_FREE_GB: { group: 'config', default: '10', parse: nonNegativeNumber, description: "Warn (event, Disk page) when a volume holding Studio's data has less free space than this many GB" },
  NODES_SCRIPT_TIMEOUT_S: { group: 'config', default: '300', parse: integer(), description: 'Node package install script deadline' },
  CHATBOT_ALLOWED_CHATS: { group: 'config', default: null, parse: chatIds, description: 'Chat ids the chat bot serves' },
  // 0 would be short polling: a tight loop against the platform while nothing happens.
  CHATBOT_POLL_TIMEOUT_S: { group: 'config', default: '30', parse: integer({ min: 1, max: 50 }), description: 'Long poll wait of the chat bot' },
  GALLERY_COMMUNITY_LIMIT: { group: 'config', default: '200', parse: integer(), description: "Community images a model's gallery keeps at most" },
  GALLERY_PAGE_DELAY_MS: { group: 'config', default: '1000', parse: integer(), description: 'Pause between two model hub pages of a gallery fetch' },
  STANDIN_STEP_MS: { group: 'config', default: '300', parse: integer(), description: "The stand-in engine's delay between progress steps" },
  STANDIN_NODE_MS: { group: 'config', default: '50', parse: integer(), description: 'Stand-in time for a node without steps' },
  STANDIN_OBJECT_INFO: { group: 'config', default: null, parse: text, description: 'Node dump the stand-in serves' },
  STUDIO_CGROUP_ROOT: { group: 'config', default: '/sys/fs/cgroup', parse: text, description: 'cgroup filesystem read for the memory limit' },
  STUDIO_NVIDIA_SMI: { group: 'config', default: 'nvidia-smi', parse: text, description: 'GPU query program' },
  STUDIO_TELEMETRY_SAMPLE_MS: { group: 'config', default: '5000', parse: integer({ min: 100 }), description: 'Telemetry sampling interval' },
  DEV_MODE: { group: 'config', default: null, parse: presence, description: 'When set, system status shows a database browser URL' },

  STUDIO_DIR: { group: 'readonly', default: '/workspace/studio', parse: absolutePath, description: 'Data directory in use' },
  // Unset: the shipped root (the checkout, or a packaged app's resources folder), decided in loadConfig.
  STUDIO_APP_DIR: { group: 'readonly', default: null, parse: absolutePath, description: 'Installed code an update replaces' },
} as const satisfies Record<string, EnvVarSpec<unknown>>;

export type EnvKey = keyof typeof ENV_VARS;

type ValueOf<S> = S extends { parse: EnvParser<infer T>; default: infer D } ? (D extends null ? T | null : T) : never;

/** Every declared variable's value: parsed, the default applied, null when unset without one. */
export type EnvValues = { readonly [K in EnvKey]: ValueOf<(typeof ENV_VARS)[K]> };

/** The variables editable at runtime through the environment route (the spec's five). */
export type EditableVar = { [K in EnvKey]: (typeof ENV_VARS)[K] extends { editable: true } ? K : never }[EnvKey];

/** Every declared variable's name, in the table's order. */
export const ENV_KEYS = Object.keys(ENV_VARS) as EnvKey[];

/**
 * What the settings page says about each environment variable: its group, default, meaning and
 * whether it is secret or editable (spec "Environment variable entry"). Values come from the
 * config's snapshot of the environment and, for the editable five, from the live secrets.
 */

export interface EnvVarInfo {
  key: string;
  default: string | null;
  description: string;
  sensitive?: boolean;
  editable?: boolean;
}

export interface EnvGroupInfo {
  id: string;
  label: string;
  vars: EnvVarInfo[];
}

/** Names treated as secrets wherever they appear (the hosting platform's too). */
export const SECRET_NAME = /(^|_)(API_KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)($|_)/i;

export const AUTH_GROUP: EnvGroupInfo = {
  id: 'auth',
  label: 'Authentication & API Tokens',
  vars: [
    { key: 'API_KEY', default: 'studio-local', description: 'Login secret and the value accepted in X-API-Key; changing it signs every session out', sensitive: true, editable: true },
    { key: 'MODELHUB_API_KEY', default: null, description: 'Model hub token (downloads, metadata)', sensitive: true, editable: true },
    { key: 'HUB_TOKEN', default: null, description: 'Repository host token (gated downloads)', sensitive: true, editable: true },
    { key: 'CHATBOT_BOT_TOKEN', default: null, description: 'Chat bot token; changing it restarts the bot', sensitive: true, editable: true },
    { key: 'CHATBOT_BOT_NAME', default: null, description: 'Chat bot display name; changing it restarts the bot', editable: true },
  ],
};

export const CONFIG_GROUP: EnvGroupInfo = {
  id: 'config',
  label: 'Configuration (set in the environment, applied at start)',
  vars: [
    { key: 'STUDIO_PORT', default: '8000', description: "Studio's HTTP/WebSocket port" },
    { key: 'STUDIO_HOST', default: '0.0.0.0', description: 'Bind address once a strong API_KEY is set' },
    { key: 'STUDIO_ALLOWED_HOSTS', default: null, description: 'Extra Host names browsers may use' },
    { key: 'STUDIO_TLS_CERT', default: null, description: 'PEM certificate for HTTPS' },
    { key: 'STUDIO_TLS_KEY', default: null, description: 'PEM private key file for HTTPS (a path, not the key)' },
    { key: 'ENGINE_PORT', default: '8188', description: "The engine's port" },
    { key: 'ENGINE_MODE', default: 'automatic', description: 'standin, managed or external' },
    { key: 'ENGINE_DIR', default: null, description: 'An engine checkout to run as a supervised child' },
    { key: 'ENGINE_PYTHON', default: 'python3', description: 'The Python that runs the engine' },
    { key: 'ENGINE_ARGS', default: null, description: 'Extra flags for a managed engine' },
    { key: 'ENGINE_PREVIEW_METHOD', default: 'auto', description: 'Sampler preview method' },
    { key: 'LLM_BINARY', default: 'llama-server', description: 'The LLM server executable' },
    { key: 'LLM_PORT', default: '8080', description: "The LLM server's port" },
    { key: 'LLM_IDLE_MINUTES', default: '0', description: 'Stop an idle LLM server after this many minutes' },
    { key: 'LLM_GPU_POLICY', default: 'share', description: 'yield: park the LLM server while image jobs run' },
    { key: 'REPO_URL', default: null, description: 'Git repository Studio updates itself from' },
    { key: 'MODELHUB_BASE_URL', default: 'https://civitai.com', description: 'Model hub API base' },
    { key: 'REPOHOST_BASE_URL', default: 'https://huggingface.co', description: 'Repository host base' },
    { key: 'CHATBOT_API_BASE_URL', default: 'https://api.telegram.org', description: 'Chat platform bot API base' },
    { key: 'LLM_READY_TIMEOUT_S', default: '300', description: 'How long a starting LLM server may keep loading its model' },
    { key: 'NODES_CLONE_TIMEOUT_S', default: '120', description: 'Node package clone deadline' },
    { key: 'NODES_PIP_TIMEOUT_S', default: '300', description: 'Node package dependency install deadline' },
    { key: 'NODES_SCRIPT_TIMEOUT_S', default: '300', description: 'Node package install script deadline' },
    { key: 'CHATBOT_ALLOWED_CHATS', default: null, description: 'Chat ids the chat bot serves' },
    { key: 'CHATBOT_POLL_TIMEOUT_S', default: '30', description: 'Long poll wait of the chat bot' },
    { key: 'GALLERY_COMMUNITY_LIMIT', default: '200', description: "Community images a model's gallery keeps at most" },
    { key: 'GALLERY_PAGE_DELAY_MS', default: '1000', description: 'Pause between two model hub pages of a gallery fetch' },
    { key: 'STANDIN_STEP_MS', default: '300', description: "The stand-in engine's delay between progress steps" },
    { key: 'STANDIN_NODE_MS', default: '50', description: 'Stand-in time for a node without steps' },
    { key: 'STANDIN_OBJECT_INFO', default: null, description: 'Node dump the stand-in serves' },
    { key: 'STUDIO_CGROUP_ROOT', default: '/sys/fs/cgroup', description: 'cgroup filesystem read for the memory limit' },
    { key: 'STUDIO_NVIDIA_SMI', default: 'nvidia-smi', description: 'GPU query program' },
    { key: 'STUDIO_TELEMETRY_SAMPLE_MS', default: '5000', description: 'Telemetry sampling interval' },
    { key: 'DEV_MODE', default: null, description: 'When set, system status shows a database browser URL' },
  ],
};

export const READONLY_GROUP: EnvGroupInfo = {
  id: 'readonly',
  label: 'Read-only (this installation)',
  vars: [
    { key: 'STUDIO_DIR', default: '/workspace/studio', description: 'Data directory in use' },
    { key: 'STUDIO_APP_DIR', default: null, description: 'Installed code an update replaces' },
    { key: 'STUDIO_VERSION', default: null, description: 'Version of the running Studio' },
  ],
};

/** The hosting platform's group: shown only when its variables are present. */
export const PLATFORM_GROUP = { id: 'platform', label: 'RunPod (hosting platform)', prefix: 'RUNPOD_' } as const;

/**
 * The environment Studio gives its child processes (engine, stand-in, LLM server, git, pip,
 * ffmpeg): an allowlist, so Studio's own secrets never reach a program that runs third-party
 * code (an engine extension, a pip build script). A child that truly needs one secret gets it
 * added explicitly where it is spawned, with the reason beside it.
 */

/** Names passed through as they are. */
const NAMES = new Set([
  'PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LANGUAGE', 'TZ', 'TERM',
  'TMPDIR', 'TMP', 'TEMP',
  // Windows needs these to start anything at all.
  'SYSTEMROOT', 'SYSTEMDRIVE', 'WINDIR', 'COMSPEC', 'PATHEXT', 'APPDATA', 'LOCALAPPDATA', 'USERPROFILE', 'PROGRAMDATA',
  // Proxies and certificate bundles: git and pip behind a company proxy.
  'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'no_proxy', 'all_proxy',
  'SSL_CERT_FILE', 'SSL_CERT_DIR', 'REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE', 'NODE_EXTRA_CA_CERTS',
  'VIRTUAL_ENV', 'CONDA_PREFIX', 'LD_LIBRARY_PATH', 'DISPLAY',
]);

/** Prefixes passed through: locale, Python/pip/uv/git settings, GPU runtimes, thread counts, Studio's own non-secret settings. */
const PREFIXES = ['LC_', 'XDG_', 'PYTHON', 'PIP_', 'UV_', 'GIT_', 'CUDA_', 'NVIDIA_', 'HIP_', 'ROCM_', 'HSA_', 'PYTORCH_', 'OMP_', 'MKL_', 'OPENBLAS_', 'STUDIO_', 'ENGINE_', 'STANDIN_', 'LLM_'];

/** Never passed, whatever the lists above say: Studio's secrets and anything named like one. */
const SECRET = /(^|_)(API_KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)($|_)/i;

/** The allowlisted copy of `env` for a child process. */
export function childEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (typeof value !== 'string' || SECRET.test(name)) continue;
    if (NAMES.has(name) || PREFIXES.some((prefix) => name.startsWith(prefix))) out[name] = value;
  }
  return out;
}

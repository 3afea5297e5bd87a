/**
 * The system page's state: status and versions, update and restart (with the wait for the new
 * process), environment settings with reveal, and telemetry over the last 30 minutes (history
 * once, then live samples from the socket).
 */
import { defineStore } from 'pinia';
import { onScopeDispose, ref } from 'vue';
import { useClient } from '../api/context.js';
import { SystemApi, type AppUpdateInfo, type EnvGroup, type SystemStatus, type TelemetrySample, type UpdateResult, type Uptime, type VersionSummary } from '../api/system-api.js';

const WINDOW_MS = 30 * 60_000;
// A restart takes about 2 s (spec); an update with a dependency install can take much longer.
const RESTART_POLL_MS = 1_000;
const RESTART_GIVE_UP_MS = 120_000;

export type RestartPhase = 'idle' | 'restarting' | 'back' | 'timeout';

/** Keep samples newer than the window's start, in time order. */
export function trimSamples(samples: readonly TelemetrySample[], now: number, windowMs = WINDOW_MS): TelemetrySample[] {
  return samples.filter((s) => now - new Date(s.timestamp).getTime() <= windowMs);
}

export const useSystemStore = defineStore('system', () => {
  const { api: studio, socket } = useClient();
  const api = new SystemApi(studio.http);
  const status = ref<SystemStatus | null>(null);
  const uptime = ref<Uptime | null>(null);
  const error = ref<string | null>(null);
  const remote = ref<{ remote: VersionSummary; local: VersionSummary } | null>(null);
  const updateResult = ref<UpdateResult | null>(null);
  const updating = ref(false);
  const restartPhase = ref<RestartPhase>('idle');
  const env = ref<EnvGroup[]>([]);
  const revealed = ref<Record<string, string> | null>(null);
  const samples = ref<TelemetrySample[]>([]);
  const appUpdate = ref<AppUpdateInfo | null>(null);

  const off = socket.on('telemetry.sample', (sample) => {
    samples.value = trimSamples([...samples.value, sample], Date.now());
  });
  onScopeDispose(off);

  async function refresh(): Promise<void> {
    try {
      const [s, u, e, h] = await Promise.all([api.status(), api.uptime(), api.envSettings(), api.telemetryHistory()]);
      status.value = s;
      uptime.value = u;
      env.value = e.groups;
      samples.value = trimSamples(h.samples, Date.now());
      error.value = null;
      await refreshAppUpdate();
    } catch (err) {
      error.value = err instanceof Error ? err.message : String(err);
    }
  }

  /** Which updater applies and its state (an older server without the route: none shown). */
  async function refreshAppUpdate(): Promise<void> {
    appUpdate.value = await api.appUpdate().catch(() => null);
  }

  /** Check, download or install the desktop app's update, then show its new state. */
  async function appUpdateAction(action: 'check' | 'download' | 'install'): Promise<void> {
    const desktop = await api.appUpdateAction(action);
    if (appUpdate.value) appUpdate.value = { ...appUpdate.value, desktop };
  }

  async function checkRemote(): Promise<void> {
    remote.value = await api.remoteVersion();
  }

  /** Apply an update; when Studio restarts for it, wait for the new process. */
  async function update(skip: string[] = []): Promise<UpdateResult> {
    const before = uptime.value?.started_at ?? null;
    updating.value = true;
    try {
      const result = await api.update(skip);
      updateResult.value = result;
      if (result.restart_needed) await waitForRestart(before);
      return result;
    } finally {
      updating.value = false;
    }
  }

  /** Restart Studio and wait until a new process answers. */
  async function restart(): Promise<void> {
    const before = uptime.value?.started_at ?? (await api.uptime()).started_at;
    await api.restart();
    await waitForRestart(before);
  }

  // Polls uptime until a process with another start time answers (every second, capped).
  async function waitForRestart(before: string | null): Promise<void> {
    restartPhase.value = 'restarting';
    const end = Date.now() + RESTART_GIVE_UP_MS;
    while (Date.now() < end) {
      await new Promise((r) => setTimeout(r, RESTART_POLL_MS));
      const now = await api.uptime().catch(() => null);
      if (now && now.started_at !== before) {
        restartPhase.value = 'back';
        socket.retryNow();
        await refresh();
        return;
      }
    }
    restartPhase.value = 'timeout';
  }

  async function setEnv(key: string, value: string): Promise<void> {
    await api.setEnv(key, value);
    if (revealed.value && key in revealed.value) revealed.value = { ...revealed.value, [key]: value };
    env.value = (await api.envSettings()).groups;
  }

  async function setRepo(url: string): Promise<void> {
    await api.setUpdateRepository(url);
    // The repository decides whether "Check for updates" can run: show its new state at once.
    remote.value = null;
    await refresh();
    if (env.value) env.value = (await api.envSettings()).groups;
  }

  async function reveal(apiKey: string): Promise<void> {
    revealed.value = await api.reveal(apiKey);
  }

  function hide(): void {
    revealed.value = null;
  }

  return { extensionUrl: () => api.extensionUrl(), status, uptime, error, remote, updateResult, updating, restartPhase, env, revealed, samples, appUpdate, refresh, refreshAppUpdate, appUpdateAction, checkRemote, update, restart, setEnv, setRepo, reveal, hide };
});

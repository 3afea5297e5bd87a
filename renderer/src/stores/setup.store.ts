/**
 * The setup page's state: the report (GPUs, installs, free space, the install in progress), the
 * release tags, and the live log of an install as the WebSocket brings it.
 */
import { defineStore } from 'pinia';
import { ref } from 'vue';
import { useClient } from '../api/context.js';
import { SetupApi, type EngineSettingsWire, type ReleaseList, type SetupReport } from '../api/setup-api.js';
import { errorText } from '../lib/errors.js';

const KEPT_LINES = 400;

export const useSetupStore = defineStore('setup', () => {
  const { api: studio, socket } = useClient();
  const api = new SetupApi(studio.http);
  const report = ref<SetupReport | null>(null);
  const releases = ref<ReleaseList | null>(null);
  const releasesError = ref<string | null>(null);
  const error = ref<string | null>(null);
  const loading = ref(false);
  /** Output lines of the install in progress, live. */
  const lines = ref<string[]>([]);

  async function refresh(fresh = false): Promise<void> {
    loading.value = true;
    try {
      report.value = await api.report(fresh);
      if (report.value.install && lines.value.length === 0) lines.value = [...report.value.install.log];
      error.value = null;
    } catch (err) {
      error.value = errorText(err);
    } finally {
      loading.value = false;
    }
  }

  async function loadReleases(): Promise<void> {
    try {
      releases.value = await api.releases();
      releasesError.value = null;
    } catch (err) {
      releasesError.value = errorText(err);
    }
  }

  /** Follow installs over the WebSocket; returns the unsubscribe. */
  function follow(): () => void {
    return socket.on('setup.install', (msg) => {
      if (msg.line !== undefined) {
        lines.value.push(msg.line);
        if (lines.value.length > KEPT_LINES) lines.value.splice(0, lines.value.length - KEPT_LINES);
      } else {
        // A step changed or the job ended: the report carries the steps and their times.
        void refresh();
      }
    });
  }

  async function start<T>(work: () => Promise<T>): Promise<T> {
    lines.value = [];
    const result = await work();
    await refresh();
    return result;
  }

  return {
    report,
    releases,
    releasesError,
    error,
    loading,
    lines,
    refresh,
    loadReleases,
    follow,
    install: (version?: string) => start(() => api.install(version)),
    update: (version: string) => start(() => api.update(version)),
    use: (body: Parameters<SetupApi['use']>[0]) => start(() => api.use(body)),
    cancel: () => api.cancel().then(() => refresh()),
    rollback: () => api.rollback().then((r) => refresh().then(() => r)),
    removeVersion: (dir: string) => api.removeVersion(dir).then(() => refresh()),
    keepStandin: () => api.keepStandin().then(() => refresh()),
    saveSettings: (settings: Partial<EngineSettingsWire>) => api.saveSettings(settings).then((r) => refresh().then(() => r)),
    restartEngine: () => api.restartEngine().then(() => refresh()),
    firstStart: () => api.firstStart(),
  };
});

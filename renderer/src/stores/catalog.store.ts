/**
 * Model and LoRA catalogs, the live download status stream (bytes, speed, ETA per file, once a
 * second), the disk figures and the activity log. The stream is open while some view needs it
 * (`retainStream`/`releaseStream`, counted) so an idle page does not hold a connection.
 */
import { defineStore } from 'pinia';
import { computed, onScopeDispose, ref } from 'vue';
import { useClient } from '../api/context.js';
import type { CatalogKind } from '../api/studio-api.js';
import type { ActivityLine, CatalogModel, CatalogResponse, DownloadStatus, DownloadStream } from '../api/types.js';

const SPEED_SAMPLES = 60;

/** Files whose download state moved to `done` or `error` between two stream frames. */
export function settledFiles(before: Record<string, DownloadStatus>, after: Record<string, DownloadStatus>): string[] {
  const out: string[] = [];
  for (const [file, now] of Object.entries(after)) {
    const was = before[file];
    if ((now.status === 'done' || now.status === 'error') && (!was || (was.status !== 'done' && was.status !== 'error'))) out.push(file);
  }
  // A file that vanished from the stream finished (or was cancelled) while it was active.
  for (const [file, was] of Object.entries(before)) if (!after[file] && (was.status === 'queued' || was.status === 'downloading')) out.push(file);
  return out;
}

/** Sum of the speeds of every active download. */
export function totalSpeed(downloads: Record<string, DownloadStatus>): number {
  return Object.values(downloads).reduce((sum, d) => sum + (d.status === 'downloading' ? d.speed || 0 : 0), 0);
}

export const useCatalogStore = defineStore('catalog', () => {
  const { api } = useClient();
  const catalogs = ref<Record<CatalogKind, CatalogResponse | null>>({ models: null, loras: null });
  const errors = ref<Record<CatalogKind, string | null>>({ models: null, loras: null });
  const downloads = ref<Record<string, DownloadStatus>>({});
  const speedHistory = ref<number[]>([]);
  const streamConnected = ref(false);
  const activity = ref<ActivityLine[]>([]);
  const busy = ref<Record<string, boolean>>({});
  /** How many downloads run at once (the server's setting, 1–10). */
  const maxConcurrent = ref<number | null>(null);
  let streamUsers = 0;
  let closeStream: (() => void) | null = null;
  let settleTimer: ReturnType<typeof setTimeout> | null = null;
  const settleListeners = new Set<(files: string[]) => void>();

  function onFrame(frame: DownloadStream): void {
    const settled = settledFiles(downloads.value, frame.downloads);
    downloads.value = frame.downloads;
    speedHistory.value = [...speedHistory.value, totalSpeed(frame.downloads)].slice(-SPEED_SAMPLES);
    if (settled.length) {
      // Several files can finish within a second or two: refetch once for all of them.
      if (settleTimer) clearTimeout(settleTimer);
      settleTimer = setTimeout(() => {
        settleTimer = null;
        void refreshAll();
        for (const fn of settleListeners) fn(settled);
      }, 300);
    }
  }

  /** Open the status stream while at least one user holds it. */
  function retainStream(): void {
    streamUsers += 1;
    if (!closeStream) closeStream = api.downloadStream(onFrame, (ok) => (streamConnected.value = ok));
  }

  /** Let go of the stream; the last user closes it. */
  function releaseStream(): void {
    streamUsers = Math.max(0, streamUsers - 1);
    if (streamUsers === 0 && closeStream) {
      closeStream();
      closeStream = null;
      streamConnected.value = false;
    }
  }

  /** Called with the files whose downloads ended (the workflows view refreshes readiness). */
  function onSettled(fn: (files: string[]) => void): () => void {
    settleListeners.add(fn);
    return () => settleListeners.delete(fn);
  }

  onScopeDispose(() => {
    closeStream?.();
    if (settleTimer) clearTimeout(settleTimer);
  });

  async function refresh(kind: CatalogKind): Promise<void> {
    try {
      // Await first: spreading before the await would put back a stale copy of the other catalog.
      const answer = await api.catalog(kind);
      catalogs.value = { ...catalogs.value, [kind]: answer };
      errors.value = { ...errors.value, [kind]: null };
    } catch (err) {
      errors.value = { ...errors.value, [kind]: err instanceof Error ? err.message : String(err) };
    }
  }

  async function refreshAll(): Promise<void> {
    await Promise.all([refresh('models'), refresh('loras'), loadActivity().catch(() => undefined)]);
  }

  async function withBusy<T>(key: string, work: () => Promise<T>): Promise<T> {
    busy.value = { ...busy.value, [key]: true };
    try {
      return await work();
    } finally {
      const copy = { ...busy.value };
      delete copy[key];
      busy.value = copy;
    }
  }

  /** Queue one file; the stream shows its progress. */
  async function download(file: string): Promise<void> {
    await withBusy(file, () => api.download(file));
    downloads.value = { ...downloads.value, [file]: downloads.value[file] ?? { status: 'queued', bytes_downloaded: 0, bytes_total: 0, speed: 0, percent: 0 } };
    await refreshAll();
  }

  async function downloadBatch(files: string[]): Promise<{ queued: string[]; skipped: string[] }> {
    const answer = await withBusy('batch', () => api.downloadBatch(files));
    await refreshAll();
    return answer;
  }

  async function deleteFile(file: string): Promise<void> {
    await withBusy(file, () => api.deleteModel(file));
    await refreshAll();
  }

  async function removeFromCatalog(file: string): Promise<void> {
    await withBusy(file, () => api.removeFromCatalog(file));
    await refreshAll();
  }

  async function importFile(file: File): Promise<{ added: string[]; skipped: string[] }> {
    const answer = await withBusy('import', () => api.importCatalog(file));
    await refreshAll();
    return answer;
  }

  async function loadSettings(): Promise<void> {
    maxConcurrent.value = (await api.settings()).max_concurrent;
  }

  /** Change how many downloads run at once; returns the value the server kept. */
  async function setMaxConcurrent(value: number): Promise<number> {
    await api.saveSettings({ max_concurrent: value });
    await loadSettings();
    return maxConcurrent.value ?? value;
  }

  async function loadActivity(): Promise<void> {
    activity.value = await api.activityLog();
  }

  async function clearActivity(): Promise<void> {
    await api.clearActivityLog();
    activity.value = [];
  }

  /** Every entry of both catalogs by file name. */
  const entries = computed(() => {
    const map: Record<string, CatalogModel> = {};
    for (const kind of ['models', 'loras'] as const) {
      for (const category of catalogs.value[kind]?.categories ?? []) for (const m of category.models) map[m.file] = m;
    }
    return map;
  });

  /** Disk figures from whichever catalog answered. */
  const disk = computed(() => {
    const stats = catalogs.value.models?.stats ?? catalogs.value.loras?.stats;
    return stats ? { used: stats.models_bytes, free: stats.free_bytes } : null;
  });

  return {
    catalogs,
    errors,
    downloads,
    speedHistory,
    streamConnected,
    activity,
    busy,
    entries,
    disk,
    retainStream,
    releaseStream,
    onSettled,
    refresh,
    refreshAll,
    download,
    downloadBatch,
    deleteFile,
    removeFromCatalog,
    importFile,
    loadActivity,
    clearActivity,
    maxConcurrent,
    loadSettings,
    setMaxConcurrent,
  };
});

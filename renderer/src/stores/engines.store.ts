/**
 * The engines of the pool as the Engines page shows them: refreshed on demand and every few
 * seconds while the page is open (status, current job and speed change as jobs run).
 */
import { defineStore } from 'pinia';
import { ref } from 'vue';
import { useClient } from '../api/context.js';
import { EnginesApi, type EngineInfo } from '../api/engines-api.js';

export const useEnginesStore = defineStore('engines', () => {
  const { api: studio } = useClient();
  const api = new EnginesApi(studio.http);
  const engines = ref<EngineInfo[]>([]);
  const warning = ref('');
  const error = ref<string | null>(null);
  const loaded = ref(false);

  async function refresh(): Promise<void> {
    try {
      const listing = await api.list();
      engines.value = listing.engines;
      warning.value = listing.warning;
      error.value = null;
      loaded.value = true;
    } catch (err) {
      error.value = err instanceof Error ? err.message : String(err);
    }
  }

  async function add(name: string, url: string, key: string): Promise<EngineInfo> {
    const engine = await api.add({ name, url, ...(key ? { key } : {}) });
    await refresh();
    return engine;
  }

  async function remove(id: string): Promise<void> {
    await api.remove(id);
    await refresh();
  }

  /** Ask agent `id` to download `filename` from the catalog; resolves with the agent's answer (queued, downloading, present). */
  async function downloadModel(id: string, filename: string): Promise<{ status: string; file: string }> {
    return api.downloadModel(id, filename);
  }

  return { engines, warning, error, loaded, refresh, add, remove, downloadModel };
});

/**
 * One model's gallery at a time: items with filters, the hub fetch followed while it runs
 * (polled every second, stopped when it ends or the view closes), star, metadata, input, delete.
 */
import { defineStore } from 'pinia';
import { ref } from 'vue';
import { useClient } from '../api/context.js';
import { GalleryApi, type FetchRow, type GalleryFilter, type GalleryItemView } from '../api/gallery-api.js';

const POLL_MS = 1_000;

export const useGalleryStore = defineStore('gallery', () => {
  const api = new GalleryApi(useClient().api.http);
  const modelId = ref<string | null>(null);
  const items = ref<GalleryItemView[]>([]);
  const total = ref(0);
  const fetch = ref<FetchRow | null>(null);
  const filter = ref<GalleryFilter>({});
  const error = ref<string | null>(null);
  const loaded = ref(false);
  let timer: ReturnType<typeof setTimeout> | null = null;

  function stopPolling(): void {
    if (timer) clearTimeout(timer);
    timer = null;
  }

  async function refresh(): Promise<void> {
    const id = modelId.value;
    if (!id) return;
    try {
      const listing = await api.list(id, filter.value);
      if (id !== modelId.value) return;
      items.value = listing.items;
      total.value = listing.total;
      fetch.value = listing.fetch;
      loaded.value = true;
      error.value = null;
    } catch (err) {
      error.value = err instanceof Error ? err.message : String(err);
    }
    stopPolling();
    if (fetch.value?.status === 'running' || fetch.value?.status === 'queued') timer = setTimeout(() => void refresh(), POLL_MS);
  }

  /** Show another model's gallery. */
  async function open(id: string): Promise<void> {
    stopPolling();
    modelId.value = id;
    items.value = [];
    loaded.value = false;
    await refresh();
  }

  async function setFilter(next: GalleryFilter): Promise<void> {
    filter.value = next;
    await refresh();
  }

  async function fetchMore(): Promise<void> {
    if (!modelId.value) return;
    fetch.value = (await api.fetchMore(modelId.value)).fetch;
    await refresh();
  }

  async function toggleStar(item: GalleryItemView): Promise<void> {
    item.starred = (await api.star(item.id)).starred;
    if (filter.value.starred) await refresh();
  }

  async function removeAll(): Promise<number> {
    if (!modelId.value) return 0;
    const { deleted } = await api.removeAll(modelId.value);
    await refresh();
    return deleted;
  }

  return { modelId, items, total, fetch, filter, error, loaded, open, refresh, setFilter, fetchMore, toggleStar, removeAll, stopPolling, meta: (id: number) => api.meta(id), toInput: (id: number) => api.toInput(id), url: (p: string) => api.url(p) };
});

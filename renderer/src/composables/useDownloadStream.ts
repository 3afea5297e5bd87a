/**
 * Hold the download status stream open while the component is mounted.
 */
import { onBeforeUnmount, onMounted } from 'vue';
import { useCatalogStore } from '../stores/catalog.store.js';

/** Open the stream on mount, release it on unmount; returns the catalog store. */
export function useDownloadStream(): ReturnType<typeof useCatalogStore> {
  const catalog = useCatalogStore();
  onMounted(() => catalog.retainStream());
  onBeforeUnmount(() => catalog.releaseStream());
  return catalog;
}

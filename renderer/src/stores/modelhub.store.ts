/**
 * The model hub lookup: one image at a time, its picture fetched on request into the local
 * gallery, and the actions on it (add a resource to the catalog, preset, use as input; downloads
 * go through the catalog store).
 */
import { defineStore } from 'pinia';
import { ref } from 'vue';
import { useClient } from '../api/context.js';
import { ModelhubApi, parseImageId, type AddResult, type ImageLookup } from '../api/modelhub-api.js';

export const useModelhubStore = defineStore('modelhub', () => {
  const { api: studio } = useClient();
  const api = new ModelhubApi(studio.http);
  const imageId = ref<number | null>(null);
  const result = ref<ImageLookup | null>(null);
  const error = ref<string | null>(null);
  const loading = ref(false);
  const pictureUrl = ref<string | null>(null);
  /** Add-to-catalog answers by version id (a restricted one keeps its reason). */
  const added = ref<Record<string, AddResult>>({});

  async function lookup(text: string): Promise<void> {
    const id = parseImageId(text);
    if (id === null) {
      error.value = 'Paste an image id (digits) or a model hub image link (…/images/<id>).';
      return;
    }
    loading.value = true;
    error.value = null;
    try {
      result.value = await api.image(id);
      imageId.value = id;
      pictureUrl.value = null;
      added.value = {};
    } catch (err) {
      result.value = null;
      error.value = err instanceof Error ? err.message : String(err);
    } finally {
      loading.value = false;
    }
  }

  async function showPicture(): Promise<void> {
    if (imageId.value === null) return;
    await api.fetchImage(imageId.value);
    pictureUrl.value = api.mediaUrl(imageId.value);
  }

  /**
   * Add a version to the catalog. The hub's add writes every type into `models.json` (spec
   * "Catalog-add rules"); a LoRA belongs in `loras.json`, so it is promoted there at once (also
   * an earlier add left in the models catalog). The lookup is then read again, so the badges
   * and the Download button show the catalog as it now is.
   */
  async function addToCatalog(versionId: string): Promise<AddResult> {
    let answer = await api.add(versionId);
    if ((answer.status === 'added' || answer.status === 'exists') && answer.dest === 'loras' && answer.catalog !== 'loras') {
      const moved = await api.promote(versionId);
      answer = { ...answer, ...moved, status: answer.status, catalog: 'loras' };
    } else if (answer.status === 'added') {
      answer = { ...answer, catalog: 'models' };
    }
    added.value = { ...added.value, [versionId]: answer };
    await reload();
    return answer;
  }

  /** Read the looked-up image again (catalog status changes), keeping the picture and the add answers. */
  async function reload(): Promise<void> {
    if (imageId.value === null) return;
    const id = imageId.value;
    const again = await api.image(id).catch(() => null);
    if (again && imageId.value === id) result.value = again;
  }

  async function makePreset(): Promise<string> {
    if (imageId.value === null) throw new Error('Look up an image first');
    return (await api.preset(imageId.value)).id;
  }

  /** Copy the image into the engine's inputs (through the gallery); returns its input file name. */
  async function useAsInput(): Promise<string> {
    if (imageId.value === null) throw new Error('Look up an image first');
    await api.fetchImage(imageId.value);
    pictureUrl.value = api.mediaUrl(imageId.value);
    return (await api.toInput(imageId.value)).filename;
  }

  return { imageId, result, error, loading, pictureUrl, added, lookup, showPicture, addToCatalog, makePreset, useAsInput };
});

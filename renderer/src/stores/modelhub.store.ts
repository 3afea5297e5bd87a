/**
 * The model hub lookup: one image at a time, its picture fetched on request into the local
 * gallery, and the actions on it (add a resource to the catalog, download, preset, use as input).
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

  async function addToCatalog(versionId: string): Promise<AddResult> {
    const answer = await api.add(versionId);
    added.value = { ...added.value, [versionId]: answer };
    return answer;
  }

  async function download(file: string): Promise<void> {
    await studio.download(file);
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

  return { imageId, result, error, loading, pictureUrl, added, lookup, showPicture, addToCatalog, download, makePreset, useAsInput };
});

/**
 * Assets: uploaded inputs and job output folders, uploads, deletes and the outputs ZIP.
 */
import { defineStore } from 'pinia';
import { ref } from 'vue';
import { useClient } from '../api/context.js';
import { ApiError } from '../api/http.js';
import type { AssetListing, AssetsChange, AssetType } from '../api/types.js';

export const useAssetsStore = defineStore('assets', () => {
  const { api } = useClient();
  const listings = ref<Record<AssetType, AssetListing | null>>({ inputs: null, outputs: null });
  const loading = ref<Record<AssetType, boolean>>({ inputs: false, outputs: false });
  const errors = ref<Record<AssetType, string | null>>({ inputs: null, outputs: null });
  const uploading = ref(false);

  async function refresh(type: AssetType): Promise<void> {
    loading.value = { ...loading.value, [type]: true };
    try {
      const answer = await api.assets(type);
      listings.value = { ...listings.value, [type]: answer };
      errors.value = { ...errors.value, [type]: null };
    } catch (err) {
      errors.value = { ...errors.value, [type]: err instanceof Error ? err.message : String(err) };
    } finally {
      loading.value = { ...loading.value, [type]: false };
    }
  }

  /** Upload input images; the listing refreshes afterwards. */
  async function upload(files: File[]): Promise<AssetsChange> {
    uploading.value = true;
    try {
      const answer = await api.uploadInputs(files);
      await refresh('inputs');
      return answer;
    } finally {
      uploading.value = false;
    }
  }

  /** Delete files or job folders (relative paths). */
  async function remove(type: AssetType, paths: string[]): Promise<AssetsChange> {
    const answer = await api.deleteAssets(type, paths);
    await refresh(type);
    return answer;
  }

  /** Upload one image for a run form; returns the engine's input file name. */
  async function uploadForRun(file: File): Promise<string> {
    const { filename } = await api.uploadImage(file, file.name);
    return filename;
  }

  /** Why a thumbnail did not load, in words (a deleted file, a video without ffmpeg…). */
  async function thumbnailProblem(type: AssetType, path: string): Promise<string> {
    try {
      await api.thumbnailCheck(type, path);
      return 'The preview could not be shown.';
    } catch (err) {
      const detail = err instanceof ApiError ? err.detail : String(err);
      if (/ffmpeg/i.test(detail)) return 'No preview: video thumbnails need ffmpeg on the Studio machine.';
      if (err instanceof ApiError && err.status === 404) return 'The files of this job were deleted.';
      return `No preview: ${detail}`;
    }
  }

  return { thumbnailProblem, listings, loading, errors, uploading, refresh, upload, remove, uploadForRun, zipUrl: () => api.outputsZipUrl() };
});

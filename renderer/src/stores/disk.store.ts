/**
 * The disk page's state: the usage report (loaded with the page), and the duplicate and orphan
 * scans (run when asked: a first duplicate scan hashes every same-sized model file).
 */
import { defineStore } from 'pinia';
import { ref } from 'vue';
import { useClient } from '../api/context.js';
import { DiskApi, type DiskReport, type DuplicatesReport, type OrphansReport } from '../api/disk-api.js';
import { errorText } from '../lib/errors.js';

export const useDiskStore = defineStore('disk', () => {
  const { api: studio } = useClient();
  const api = new DiskApi(studio.http);
  const report = ref<DiskReport | null>(null);
  const duplicates = ref<DuplicatesReport | null>(null);
  const orphans = ref<OrphansReport | null>(null);
  const inputDays = ref(30);
  const error = ref<string | null>(null);
  const scanning = ref<'duplicates' | 'orphans' | null>(null);

  async function refresh(): Promise<void> {
    try {
      report.value = await api.report();
      error.value = null;
    } catch (err) {
      error.value = errorText(err);
    }
  }

  async function scanDuplicates(): Promise<void> {
    scanning.value = 'duplicates';
    try {
      duplicates.value = await api.duplicates();
    } finally {
      scanning.value = null;
    }
  }

  async function scanOrphans(): Promise<void> {
    scanning.value = 'orphans';
    try {
      orphans.value = await api.orphans(inputDays.value);
    } finally {
      scanning.value = null;
    }
  }

  /** Hard-link the copies of one content, then scan again. */
  async function link(sha256: string) {
    const result = await api.link(sha256);
    await Promise.all([scanDuplicates(), refresh()]);
    return result;
  }

  /** Delete the chosen unused files, then list again. */
  async function deleteOrphans(paths: string[]) {
    const result = await api.deleteOrphans(paths, inputDays.value);
    await Promise.all([scanOrphans(), refresh()]);
    return result;
  }

  return { report, duplicates, orphans, inputDays, error, scanning, refresh, scanDuplicates, scanOrphans, link, deleteOrphans };
});

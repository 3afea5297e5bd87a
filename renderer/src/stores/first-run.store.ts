/**
 * The first-run guide's facts that no other store holds: its stored state (from the server), the
 * GPU report (for the starter model), and whether a job has finished. The engine, the catalog
 * and the workflows come from their own stores.
 */
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import { useClient } from '../api/context.js';
import { FirstRunApi, type FirstRunBody, type FirstRunReport } from '../api/first-run-api.js';
import { SetupApi } from '../api/setup-api.js';
import type { GpuReport } from '../../../server/contracts/gpu.contract.js';
import { errorText } from '../lib/errors.js';

export const useFirstRunStore = defineStore('first-run', () => {
  const { api: studio } = useClient();
  const api = new FirstRunApi(studio.http);
  const setup = new SetupApi(studio.http);
  const report = ref<FirstRunReport | null>(null);
  const gpu = ref<GpuReport | null>(null);
  /** A job has completed (null until known). */
  const jobFinished = ref<boolean | null>(null);
  const error = ref<string | null>(null);
  /** The stand-in was kept on purpose (Engine setup): the engine step counts as done. */
  const standinKept = ref(false);

  async function refresh(): Promise<void> {
    try {
      const [state, history] = await Promise.all([api.report(), studio.history({ limit: 1, offset: 0, status: 'completed' })]);
      report.value = state;
      jobFinished.value = history.length > 0;
      error.value = null;
    } catch (err) {
      error.value = errorText(err);
    }
    // The GPU does not change while the page is open: read once (the setup report probes it).
    if (!gpu.value) {
      const setupReport = await setup.report().catch(() => null);
      gpu.value = setupReport?.gpu ?? null;
      if (setupReport?.standin_kept) standinKept.value = true;
    }
  }

  async function update(body: FirstRunBody): Promise<void> {
    report.value = await api.update(body);
  }

  const phoneDone = computed(() => !!report.value && (report.value.other_device_signed_in || report.value.ticked.includes('phone')));

  return { report, gpu, jobFinished, error, standinKept, phoneDone, refresh, update };
});

/**
 * Follow one job for a view: live state from the jobs store (socket-fed), and a status poll as
 * the fallback while the socket is down, so a finished job is noticed either way.
 */
import { computed, onBeforeUnmount, watch, type ComputedRef, type Ref } from 'vue';
import { useConnectionStore } from '../stores/connection.store.js';
import { useJobsStore, type TrackedJob } from '../stores/jobs.store.js';
import { useLiveRefresh } from './useLiveRefresh.js';

const POLL_MS = 3_000;

/** Track the job whose prompt id `id` holds (null = none). */
export function useJobTracker(id: Ref<string | null>): ComputedRef<TrackedJob | null> {
  const jobs = useJobsStore();
  const connection = useConnectionStore();
  const job = computed(() => (id.value ? jobs.tracked(id.value) : null));
  let timer: ReturnType<typeof setTimeout> | null = null;

  const terminal = () => job.value?.status === 'completed' || job.value?.status === 'error';

  async function check(): Promise<void> {
    if (!id.value || terminal()) return;
    await jobs.resolve(id.value).catch(() => undefined);
  }

  function schedule(): void {
    if (timer) clearTimeout(timer);
    timer = null;
    if (!id.value || terminal() || connection.online) return;
    timer = setTimeout(() => {
      void check().finally(schedule);
    }, POLL_MS);
  }

  useLiveRefresh(async () => {
    await jobs.refreshQueue().catch(() => undefined);
    await check();
  });
  watch([id, () => connection.online, () => job.value?.status], () => {
    schedule();
    if (id.value && !jobs.tracked(id.value).record) void check();
  }, { immediate: true });
  onBeforeUnmount(() => {
    if (timer) clearTimeout(timer);
  });
  return job;
}

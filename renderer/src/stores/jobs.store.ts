/**
 * Jobs: the live queue with progress and preview frames (from the socket), the paged history
 * with filters, and retry/delete. `refreshQueue` is what a reconnect or a reload calls: jobs that
 * left the queue while the page was not listening are looked up, so none is lost from sight.
 */
import { defineStore } from 'pinia';
import { computed, onScopeDispose, ref } from 'vue';
import { useClient } from '../api/context.js';
import type { HistoryQuery, JobRecord, ProgressObject } from '../api/types.js';

export type HistoryFilter = Pick<HistoryQuery, 'status' | 'workflow_id' | 'q' | 'from' | 'to' | 'starred' | 'owner'>;

export type TrackedStatus = 'queued' | 'running' | 'completed' | 'error' | 'cancelled' | 'unknown';

export interface TrackedJob {
  status: TrackedStatus;
  record: JobRecord | null;
  progress: ProgressObject | null;
  error: string | null;
  preview: string | null;
  /** Step rates seen while running, oldest first, for the sparkline. */
  rates: number[];
}

const MAX_RATE_SAMPLES = 60;

/** Progress for a job the server reports finished. */
function finalProgress(last: ProgressObject | null, ok: boolean): ProgressObject {
  const base: ProgressObject = last ?? {
    status: 'pending',
    node_title: null,
    node_type: null,
    step: 0,
    total_steps: 0,
    nodes_done: 0,
    total_nodes: 0,
    effective_total: 0,
    cached_count: 0,
    percent: 0,
    eta_seconds: null,
    step_rate: null,
    node_outputs: {},
  };
  return ok ? { ...base, status: 'completed', percent: 100, eta_seconds: 0 } : { ...base, status: 'error', eta_seconds: null };
}

/** Whether a history record passes the filter (used for records arriving over the socket). */
export function matchesHistoryFilter(job: JobRecord, filter: HistoryFilter): boolean {
  if (filter.status && job.status !== filter.status) return false;
  if (filter.workflow_id && job.workflow_id !== filter.workflow_id) return false;
  // One person's jobs: a named person's pass; "mine" waits for the next load (the page does not know who it is).
  if (filter.owner && filter.owner !== 'everyone' && (filter.owner === 'mine' || (job.owner_id ?? 'owner') !== filter.owner)) return false;
  // A job that just finished was submitted moments ago, and is not starred yet.
  if (filter.starred) return false;
  const now = Date.now();
  if ((filter.from && now < Date.parse(filter.from)) || (filter.to && now >= Date.parse(filter.to))) return false;
  if (filter.q) {
    const text = [job.workflow_name ?? '', ...Object.values(job.params).filter((v): v is string => typeof v === 'string')].join('\n').toLowerCase();
    if (!filter.q.toLowerCase().split(/\s+/).filter(Boolean).every((word) => text.includes(word))) return false;
  }
  return job.status === 'completed' || job.status === 'error' || job.status === 'stalled' || job.status === 'cancelled';
}

export const useJobsStore = defineStore('jobs', () => {
  const { api, socket } = useClient();
  const active = ref<Record<string, JobRecord>>({});
  const finished = ref<Record<string, JobRecord>>({});
  const outcomes = ref<Record<string, { status: 'completed' | 'error'; error: string | null }>>({});
  const progress = ref<Record<string, ProgressObject>>({});
  const rates = ref<Record<string, number[]>>({});
  const previews = ref<Record<string, string>>({});
  const queueLoaded = ref(false);

  const history = ref<JobRecord[]>([]);
  const historyFilter = ref<HistoryFilter>({});
  const page = ref(0);
  const pageSize = ref(20);
  const hasMore = ref(false);
  const historyLoading = ref(false);
  const historyError = ref<string | null>(null);

  const activeList = computed(() => Object.values(active.value).sort((a, b) => (a.queued_at ?? '').localeCompare(b.queued_at ?? '')));

  function setProgress(id: string, p: ProgressObject): void {
    progress.value = { ...progress.value, [id]: p };
    if (p.step_rate !== null && p.status === 'running') {
      const list = [...(rates.value[id] ?? []), p.step_rate].slice(-MAX_RATE_SAMPLES);
      rates.value = { ...rates.value, [id]: list };
    }
  }

  function upsertActive(job: JobRecord): void {
    active.value = { ...active.value, [job.prompt_id]: job };
    if (job.progress) setProgress(job.prompt_id, job.progress);
  }

  function without<T>(map: Record<string, T>, ids: readonly string[]): Record<string, T> {
    const copy = { ...map };
    for (const id of ids) delete copy[id];
    return copy;
  }

  function onFinished(job: JobRecord): void {
    const ok = job.status === 'completed';
    active.value = without(active.value, [job.prompt_id]);
    finished.value = { ...finished.value, [job.prompt_id]: job };
    outcomes.value = { ...outcomes.value, [job.prompt_id]: { status: ok ? 'completed' : 'error', error: job.error } };
    setProgress(job.prompt_id, finalProgress(progress.value[job.prompt_id] ?? null, ok));
    if (page.value === 0 && matchesHistoryFilter(job, historyFilter.value)) {
      history.value = [job, ...history.value.filter((j) => j.prompt_id !== job.prompt_id)].slice(0, pageSize.value);
    }
  }

  function forget(ids: readonly string[]): void {
    for (const id of ids) {
      const url = previews.value[id];
      if (url) URL.revokeObjectURL(url);
    }
    active.value = without(active.value, ids);
    finished.value = without(finished.value, ids);
    outcomes.value = without(outcomes.value, ids);
    progress.value = without(progress.value, ids);
    previews.value = without(previews.value, ids);
    history.value = history.value.filter((j) => !ids.includes(j.prompt_id));
  }

  const offs = [
    socket.on('job.queued', upsertActive),
    socket.on('job.started', upsertActive),
    // Its engine went offline: back to `queued`, waiting for another engine.
    socket.on('job.requeued', upsertActive),
    socket.on('job.progress', ({ prompt_id, progress: p }) => {
      if (outcomes.value[prompt_id]) return;
      setProgress(prompt_id, p);
      if (!active.value[prompt_id] && queueLoaded.value) void refreshQueue();
    }),
    socket.on('job.completed', onFinished),
    socket.on('job.failed', onFinished),
    socket.on('job.stalled', onFinished),
    socket.on('job.cancelled', onFinished),
    socket.on('job.deleted', ({ prompt_ids }) => forget(prompt_ids)),
    socket.onPreview(({ meta, image }) => {
      if (!meta.prompt_id) return;
      const old = previews.value[meta.prompt_id];
      previews.value = { ...previews.value, [meta.prompt_id]: URL.createObjectURL(image) };
      if (old) URL.revokeObjectURL(old);
    }),
  ];
  onScopeDispose(() => offs.forEach((off) => off()));

  /** Reload the active queue; jobs that left it meanwhile are resolved through their status. */
  async function refreshQueue(): Promise<void> {
    const before = Object.keys(active.value);
    const jobs = await api.queue();
    const next: Record<string, JobRecord> = {};
    for (const job of jobs) next[job.prompt_id] = job;
    active.value = next;
    for (const job of jobs) if (job.progress && !outcomes.value[job.prompt_id]) setProgress(job.prompt_id, job.progress);
    queueLoaded.value = true;
    const gone = before.filter((id) => !next[id] && !outcomes.value[id]);
    await Promise.all(gone.map((id) => resolve(id).catch(() => undefined)));
  }

  /** Ask the server how a job stands (the fallback when socket messages may have been missed). */
  async function resolve(id: string): Promise<TrackedStatus> {
    const status = await api.runStatus(id);
    if (status.status === 'completed' || status.status === 'error') {
      const ok = status.status === 'completed';
      const error = 'error' in status ? status.error : null;
      if (!outcomes.value[id]) {
        const record = active.value[id] ?? finished.value[id];
        if (record) onFinished({ ...record, status: ok ? 'completed' : 'error', error });
        else {
          outcomes.value = { ...outcomes.value, [id]: { status: ok ? 'completed' : 'error', error } };
          setProgress(id, finalProgress(progress.value[id] ?? null, ok));
        }
      }
      return ok ? 'completed' : 'error';
    }
    if (status.status === 'running' && 'percent' in status) {
      const { prompt_id: _id, ...p } = status;
      setProgress(id, p);
    }
    if (!active.value[id]) await refreshQueueOnly();
    return status.status === 'pending' ? 'queued' : 'running';
  }

  async function refreshQueueOnly(): Promise<void> {
    const jobs = await api.queue();
    for (const job of jobs) if (!outcomes.value[job.prompt_id]) upsertActive(job);
  }

  /** Everything the run view needs about one job. */
  function tracked(id: string): TrackedJob {
    const record = active.value[id] ?? finished.value[id] ?? history.value.find((j) => j.prompt_id === id) ?? null;
    const outcome = outcomes.value[id];
    let status: TrackedStatus = 'unknown';
    if (outcome) status = outcome.status;
    else if (record) status = record.status === 'stalled' ? 'error' : record.status;
    return {
      status,
      record,
      progress: progress.value[id] ?? null,
      error: outcome?.error ?? record?.error ?? null,
      preview: previews.value[id] ?? null,
      rates: rates.value[id] ?? [],
    };
  }

  /** Load one page of history with the current filter. */
  async function loadHistory(nextPage = page.value): Promise<void> {
    historyLoading.value = true;
    try {
      const rows = await api.history({ limit: pageSize.value + 1, offset: nextPage * pageSize.value, ...historyFilter.value });
      history.value = rows.slice(0, pageSize.value);
      hasMore.value = rows.length > pageSize.value;
      page.value = nextPage;
      historyError.value = null;
    } catch (err) {
      historyError.value = err instanceof Error ? err.message : String(err);
    } finally {
      historyLoading.value = false;
    }
  }

  /** Change the filter and go back to the first page. */
  async function setFilter(filter: HistoryFilter): Promise<void> {
    historyFilter.value = { ...filter };
    await loadHistory(0);
  }

  /** The newest finished jobs, unfiltered (the assets page links folders to their jobs). */
  function recent(limit: number): Promise<JobRecord[]> {
    return api.history({ limit, offset: 0 });
  }

  /** Retry a failed job; returns the new prompt id. */
  async function retry(id: string): Promise<string> {
    const answer = await api.retryJob(id);
    await refreshQueueOnly().catch(() => undefined);
    return answer.prompt_id;
  }

  /** Star or unstar a job; the record in view takes the answer. */
  async function star(id: string, starred: boolean): Promise<JobRecord> {
    const record = await api.starJob(id, starred);
    history.value = history.value.map((j) => (j.prompt_id === id ? record : j)).filter((j) => j.prompt_id !== id || matchesStarFilter(j));
    if (finished.value[id]) finished.value = { ...finished.value, [id]: record };
    return record;
  }

  function matchesStarFilter(job: JobRecord): boolean {
    const want = historyFilter.value.starred;
    return want === undefined || !!job.starred === want;
  }

  /**
   * The jobs either side of `id` in the history as filtered (newer, older), for the job viewer's
   * arrows and swipes; pages on when `id` is at an edge of the page loaded. Null where there is none.
   */
  async function neighbour(id: string, direction: 'newer' | 'older'): Promise<string | null> {
    let index = history.value.findIndex((j) => j.prompt_id === id);
    if (index < 0) {
      // Opened from elsewhere (a link, a reload): the first page of the history as filtered.
      await loadHistory(0);
      index = history.value.findIndex((j) => j.prompt_id === id);
      if (index < 0) return null;
    }
    const next = index + (direction === 'older' ? 1 : -1);
    if (next >= 0 && next < history.value.length) return history.value[next]!.prompt_id;
    if (direction === 'older' && hasMore.value) {
      await loadHistory(page.value + 1);
      return history.value[0]?.prompt_id ?? null;
    }
    if (direction === 'newer' && page.value > 0) {
      await loadHistory(page.value - 1);
      return history.value.at(-1)?.prompt_id ?? null;
    }
    return null;
  }

  /** Delete jobs (records and output folders). */
  async function remove(ids: string[]): Promise<string[]> {
    const answer = await api.deleteJobs(ids);
    forget(answer.deleted);
    return answer.errors;
  }

  return {
    active,
    activeList,
    progress,
    previews,
    history,
    historyFilter,
    page,
    pageSize,
    hasMore,
    historyLoading,
    historyError,
    refreshQueue,
    resolve,
    tracked,
    loadHistory,
    setFilter,
    retry,
    remove,
    star,
    neighbour,
    recent,
  };
});

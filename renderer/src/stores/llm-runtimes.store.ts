/**
 * The llama.cpp runtimes (installed builds, what the release offers, install/switch/rollback,
 * build from source) and "any GGUF from a repository". While an install or build runs, the view
 * is read again every second and a half until it has finished (the job's phase says so).
 */
import { defineStore } from 'pinia';
import { ref } from 'vue';
import { useClient } from '../api/context.js';
import { LlmRuntimesApi, type RepoGgufView, type RuntimesView } from '../api/llm-runtimes-api.js';

const POLL_MS = 1500;

export const useLlmRuntimesStore = defineStore('llm-runtimes', () => {
  const api = new LlmRuntimesApi(useClient().api.http);
  const view = ref<RuntimesView | null>(null);
  const error = ref<string | null>(null);
  const repo = ref<RepoGgufView | null>(null);
  let timer: ReturnType<typeof setTimeout> | null = null;

  const running = () => !!view.value?.job && !['installed', 'failed', 'cancelled'].includes(view.value.job.phase);

  async function refresh(fresh = false): Promise<void> {
    try {
      view.value = await api.runtimes(fresh);
      error.value = null;
    } catch (err) {
      error.value = err instanceof Error ? err.message : String(err);
    }
    if (timer) clearTimeout(timer);
    timer = running() ? setTimeout(() => void refresh(), POLL_MS) : null;
  }

  /** Stop polling (the page left). */
  function idle(): void {
    if (timer) clearTimeout(timer);
    timer = null;
  }

  async function install(asset?: string): Promise<void> {
    await api.install(asset);
    await refresh();
  }
  async function build(): Promise<void> {
    await api.build();
    await refresh();
  }
  async function cancelBuild(): Promise<void> {
    await api.cancelBuild();
    await refresh();
  }
  async function activate(id: string): Promise<void> {
    await api.activate(id);
    await refresh();
  }
  async function rollback(): Promise<void> {
    await api.rollback();
    await refresh();
  }
  async function remove(id: string): Promise<void> {
    await api.remove(id);
    await refresh();
  }
  async function lookup(id: string): Promise<void> {
    repo.value = null;
    repo.value = await api.repoFiles(id);
  }
  async function addFromRepo(path: string): Promise<{ status: string; file: string }> {
    const result = await api.addRepoFile(repo.value!.repo, path);
    repo.value = await api.repoFiles(repo.value!.repo);
    return result;
  }

  return { view, error, repo, refresh, idle, install, build, cancelBuild, activate, rollback, remove, lookup, addFromRepo };
});

/**
 * Workflows: the list with readiness, single manifests for the run form, and "download missing
 * models" for a workflow that is not ready, and importing a workflow file.
 */
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import { useClient } from '../api/context.js';
import type { InstallModelsResult, WorkflowEntry, WorkflowImportAnswer } from '../api/types.js';

export interface WorkflowGroup {
  category: string;
  workflows: WorkflowEntry[];
}

/** Group workflows by category (in first-seen order), named categories first. */
export function groupByCategory(workflows: readonly WorkflowEntry[]): WorkflowGroup[] {
  const groups = new Map<string, WorkflowEntry[]>();
  for (const wf of workflows) {
    const key = wf.category || 'other';
    let list = groups.get(key);
    if (!list) groups.set(key, (list = []));
    list.push(wf);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a === 'other' ? 1 : b === 'other' ? -1 : a.localeCompare(b)))
    .map(([category, list]) => ({ category, workflows: list.sort((x, y) => x.name.localeCompare(y.name)) }));
}

export const useWorkflowsStore = defineStore('workflows', () => {
  const { api } = useClient();
  const list = ref<WorkflowEntry[]>([]);
  const loaded = ref(false);
  const loading = ref(false);
  const error = ref<string | null>(null);
  const details = ref<Record<string, WorkflowEntry>>({});

  const groups = computed(() => groupByCategory(list.value));

  /** Fetch the list; keeps showing the old one while the request runs. */
  async function refresh(): Promise<void> {
    loading.value = true;
    try {
      const answer = await api.listWorkflows();
      list.value = answer.workflows;
      for (const wf of answer.workflows) if (details.value[wf.id]) details.value[wf.id] = wf;
      loaded.value = true;
      error.value = null;
    } catch (err) {
      error.value = err instanceof Error ? err.message : String(err);
    } finally {
      loading.value = false;
    }
  }

  /** One workflow's manifest and readiness (fresh from the server). */
  async function load(id: string): Promise<WorkflowEntry> {
    const wf = await api.workflow(id);
    details.value = { ...details.value, [id]: wf };
    return wf;
  }

  /** Queue the workflow's missing models for download. */
  async function installMissing(id: string): Promise<InstallModelsResult> {
    return api.installModels(id);
  }

  /** Import a workflow file (any engine format, or a Studio ZIP); the list then shows it. */
  async function importWorkflow(file: File, fields: { name?: string; id?: string; category?: string }): Promise<WorkflowImportAnswer> {
    const answer = await api.importWorkflow(file, fields);
    await refresh();
    return answer;
  }

  return { list, loaded, loading, error, details, groups, refresh, load, installMissing, importWorkflow };
});

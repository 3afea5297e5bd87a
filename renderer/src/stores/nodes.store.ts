/**
 * Node packages: the list with search, and one install at a time whose output is followed live
 * (the activity log, polled while the install request runs), then the restart prompt.
 */
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import { useClient } from '../api/context.js';
import { NodesApi, type InstallResult, type NodePackage } from '../api/nodes-api.js';
import type { ActivityLine } from '../api/types.js';

const LOG_POLL_MS = 500;

/** The activity-log lines of the install of `url`: from its "Installing … from <url>" line on. */
export function installLines(lines: readonly ActivityLine[], url: string): ActivityLine[] {
  let start = -1;
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    if (lines[i]!.message.startsWith('Installing node package') && lines[i]!.message.endsWith(url)) {
      start = i;
      break;
    }
  }
  return start < 0 ? [] : lines.slice(start);
}

export const useNodesStore = defineStore('nodes', () => {
  const { api: studio } = useClient();
  const api = new NodesApi(studio.http);
  const packages = ref<NodePackage[]>([]);
  const totals = ref({ nodes: 0, packages: 0 });
  const error = ref<string | null>(null);
  const loaded = ref(false);
  const query = ref('');
  const installing = ref<string | null>(null);
  const log = ref<ActivityLine[]>([]);
  const result = ref<(InstallResult & { engine_restart: string }) | null>(null);
  const installError = ref<string | null>(null);

  /** Packages whose name or one of whose nodes matches the search; matching nodes only. */
  const filtered = computed(() => {
    const q = query.value.trim().toLowerCase();
    if (!q) return packages.value;
    return packages.value
      .map((p) => (p.name.toLowerCase().includes(q) ? p : { ...p, nodes: p.nodes.filter((n) => n.toLowerCase().includes(q)) }))
      .filter((p) => p.nodes.length > 0);
  });

  async function refresh(): Promise<void> {
    try {
      const listing = await api.list();
      packages.value = listing.packages;
      totals.value = { nodes: listing.total_nodes, packages: listing.total_packages };
      error.value = null;
      loaded.value = true;
    } catch (err) {
      error.value = err instanceof Error ? err.message : String(err);
    }
  }

  /** Install from a git URL, following its output until the answer arrives. */
  async function install(url: string): Promise<void> {
    installing.value = url;
    log.value = [];
    result.value = null;
    installError.value = null;
    let polling = true;
    const poll = async (): Promise<void> => {
      while (polling) {
        const lines = await studio.activityLog().catch(() => null);
        if (lines && polling) log.value = installLines(lines, url);
        await new Promise((r) => setTimeout(r, LOG_POLL_MS));
      }
    };
    const follower = poll();
    try {
      result.value = await api.install(url);
    } catch (err) {
      installError.value = err instanceof Error ? err.message : String(err);
    } finally {
      polling = false;
      await follower;
      log.value = installLines(await studio.activityLog().catch(() => log.value), url);
      installing.value = null;
    }
  }

  /** Restart the engine so it loads new packages; the list is read again afterwards. */
  async function restartEngine(): Promise<void> {
    await api.restartEngine();
    result.value = null;
    await refresh();
  }

  return { packages, totals, error, loaded, query, filtered, installing, log, result, installError, refresh, install, restartEngine };
});

/**
 * Node packages: the list with search; a change previewed first (the commit and the Python
 * packages pip would touch), confirmed, and followed live (the activity log, polled while the
 * request runs); per-package update / disable / enable / uninstall; snapshots and their restore.
 */
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import { useClient } from '../api/context.js';
import { NodesApi, type InstallAnswer, type InstallPreview, type InstallResult, type NodeChangeResult, type NodePackageRow, type NodeSnapshotSummary } from '../api/nodes-api.js';
import { ApiError } from '../api/http.js';
import type { ActivityLine } from '../api/types.js';

const LOG_POLL_MS = 500;

/** The activity-log lines of the last change of `url`: from its "… node package <name> from <url>" line on. */
export function installLines(lines: readonly ActivityLine[], url: string): ActivityLine[] {
  let start = -1;
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    const message = lines[i]!.message;
    if (/^(Installing|Previewing|Updating|Previewing the update of) node package /.test(message) && message.endsWith(url)) {
      start = i;
      break;
    }
  }
  return start < 0 ? [] : lines.slice(start);
}

/** A preview waiting for the user's "Install" (or "Update"). */
export interface PendingChange {
  kind: 'install' | 'update';
  preview: InstallPreview;
  /** The user agreed to a URL the node map does not give for this package name. */
  confirmSource?: boolean;
}

export const useNodesStore = defineStore('nodes', () => {
  const { api: studio } = useClient();
  const api = new NodesApi(studio.http);
  const packages = ref<NodePackageRow[]>([]);
  const totals = ref({ nodes: 0, packages: 0 });
  const error = ref<string | null>(null);
  const loaded = ref(false);
  const query = ref('');
  /** The URL whose preview or install is running. */
  const installing = ref<string | null>(null);
  const log = ref<ActivityLine[]>([]);
  const pending = ref<PendingChange | null>(null);
  const result = ref<(InstallResult & { engine_restart?: string }) | null>(null);
  const installError = ref<string | null>(null);
  /** What git itself said about the failure, for the folded "What git said" (the error above is in words). */
  const installErrorRaw = ref<string | null>(null);
  /** A URL the server refused because the node map gives its package name another source (409): the user may go ahead. */
  const sourceConflict = ref<string | null>(null);
  const snapshots = ref<NodeSnapshotSummary[]>([]);

  /** Packages whose name or one of whose nodes matches the search; matching nodes only. */
  const filtered = computed(() => {
    const q = query.value.trim().toLowerCase();
    if (!q) return packages.value;
    return packages.value
      .map((p) => (p.name.toLowerCase().includes(q) ? p : { ...p, nodes: p.nodes.filter((n) => n.toLowerCase().includes(q)) }))
      .filter((p) => p.nodes.length > 0 || p.name.toLowerCase().includes(q));
  });

  async function refresh(refreshUpdates = false): Promise<void> {
    try {
      const listing = await api.list(refreshUpdates);
      packages.value = listing.packages;
      totals.value = { nodes: listing.total_nodes, packages: listing.total_packages };
      error.value = null;
      loaded.value = true;
    } catch (err) {
      error.value = err instanceof Error ? err.message : String(err);
    }
  }

  async function refreshSnapshots(): Promise<void> {
    snapshots.value = (await api.snapshots().catch(() => ({ snapshots: snapshots.value }))).snapshots;
  }

  /** Run `work` for `url`, following its activity-log lines until the answer arrives. */
  async function follow<T>(url: string, work: () => Promise<T>): Promise<T | null> {
    installing.value = url;
    log.value = [];
    result.value = null;
    installError.value = null;
    installErrorRaw.value = null;
    sourceConflict.value = null;
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
      return await work();
    } catch (err) {
      installError.value = err instanceof Error ? err.message : String(err);
      const raw = err instanceof ApiError ? (err.body as { git_output?: unknown } | undefined)?.git_output : undefined;
      installErrorRaw.value = typeof raw === 'string' && raw ? raw : null;
      if (err instanceof ApiError && err.status === 409 && /confirm_source/.test(err.message)) sourceConflict.value = url;
      return null;
    } finally {
      polling = false;
      await follower;
      log.value = installLines(await studio.activityLog().catch(() => log.value), url);
      installing.value = null;
    }
  }

  function settle(answer: InstallAnswer | InstallResult | null, confirmSource = false): void {
    if (!answer) return;
    if (answer.status === 'preview') pending.value = { kind: 'install', preview: answer, ...(confirmSource ? { confirmSource } : {}) };
    else result.value = answer;
  }

  /** Step one: what installing `url` would change (nothing is written). */
  async function preview(url: string, confirmSource = false): Promise<void> {
    pending.value = null;
    settle(await follow(url, () => api.preview(url, confirmSource)), confirmSource);
  }

  /** Step one of an update: the newest commit and what it would change. */
  async function previewUpdate(row: NodePackageRow): Promise<void> {
    if (!row.url) return;
    pending.value = null;
    const answer = await follow(row.url, () => api.previewUpdate(row.name));
    if (answer) pending.value = { kind: 'update', preview: answer };
  }

  /** Step two: install (or update to) exactly the previewed commit. */
  async function confirm(): Promise<void> {
    const change = pending.value;
    if (!change) return;
    pending.value = null;
    const { preview: p } = change;
    settle(await follow<InstallAnswer | InstallResult>(p.url, () => (change.kind === 'install' ? api.install(p.url, p.commit, change.confirmSource === true) : api.update(p.name, p.commit))));
    await Promise.all([refresh(), refreshSnapshots()]);
  }

  function cancel(): void {
    pending.value = null;
  }

  async function afterChange<T>(work: Promise<T>): Promise<T> {
    try {
      return await work;
    } finally {
      await Promise.all([refresh(), refreshSnapshots()]);
    }
  }

  const setEnabled = (name: string, enabled: boolean): Promise<NodeChangeResult> => afterChange(api.setEnabled(name, enabled));
  const uninstall = (name: string): Promise<NodeChangeResult> => afterChange(api.uninstall(name));
  const restore = (id: string): Promise<NodeChangeResult> => afterChange(api.restore(id));

  /** Restart the engine so it loads new packages; the list is read again afterwards. */
  async function restartEngine(): Promise<void> {
    await api.restartEngine();
    result.value = null;
    await refresh();
  }

  return {
    packages, totals, error, loaded, query, filtered, installing, log, pending, result, installError, installErrorRaw, sourceConflict, snapshots,
    refresh, refreshSnapshots, preview, previewUpdate, confirm, cancel, setEnabled, uninstall, restore, restartEngine,
  };
});

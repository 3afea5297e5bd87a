/**
 * Node packages (spec "Nodes"): the engine's packages with their nodes and folder facts, a
 * preview and then the install of one from a git URL (its output lands in the activity log),
 * update / disable / enable / uninstall, snapshots and their restore, and the engine restart.
 */
import type { InstallPreview, InstallResult, NodePackageRow, NodeSearchHit, NodeSnapshotSummary } from '../../../server/contracts/nodes.contract.js';
import type { Http } from './http.js';

export type { InstallPreview, InstallResult, NodePackageRow, NodeSearchHit, NodeSnapshotSummary };

export interface NodeListing {
  packages: NodePackageRow[];
  total_nodes: number;
  total_packages: number;
}

/** What disable / enable / uninstall / restore answer. */
export interface NodeChangeResult {
  status: 'disabled' | 'enabled' | 'uninstalled' | 'restored';
  name?: string;
  snapshot_id: string;
  verified: boolean;
  node_types: string[];
  note: string | null;
  python_packages_left?: string[];
}

export type InstallAnswer = (InstallResult & { engine_restart: string }) | (InstallPreview & { engine_restart: string });

export class NodesApi {
  constructor(private readonly http: Http) {}

  /** Packages the node maps know whose name or node types match `q` (at least 2 characters). */
  search(q: string): Promise<{ query: string; results: NodeSearchHit[] }> {
    return this.http.get('/api/admin/nodes/search', { q });
  }
  list(refreshUpdates = false): Promise<NodeListing> {
    return this.http.get('/api/admin/nodes', refreshUpdates ? { refresh_updates: '1' } : undefined);
  }
  /** `confirmSource`: the user agreed to a URL the node map does not give for this package name. */
  preview(url: string, confirmSource = false): Promise<InstallAnswer> {
    return this.http.post('/api/admin/nodes/install', { url, dry_run: true, ...(confirmSource ? { confirm_source: true } : {}) });
  }
  install(url: string, commit?: string, confirmSource = false): Promise<InstallAnswer> {
    return this.http.post('/api/admin/nodes/install', { url, ...(commit ? { commit } : {}), ...(confirmSource ? { confirm_source: true } : {}) });
  }
  previewUpdate(name: string): Promise<InstallPreview> {
    return this.http.post(`/api/admin/nodes/${encodeURIComponent(name)}/update`, { dry_run: true });
  }
  update(name: string, commit: string): Promise<InstallResult> {
    return this.http.post(`/api/admin/nodes/${encodeURIComponent(name)}/update`, { commit });
  }
  setEnabled(name: string, enabled: boolean): Promise<NodeChangeResult> {
    return this.http.post(`/api/admin/nodes/${encodeURIComponent(name)}/${enabled ? 'enable' : 'disable'}`);
  }
  uninstall(name: string): Promise<NodeChangeResult> {
    return this.http.delete(`/api/admin/nodes/${encodeURIComponent(name)}`);
  }
  snapshots(): Promise<{ snapshots: NodeSnapshotSummary[] }> {
    return this.http.get('/api/admin/nodes/snapshots');
  }
  restore(id: string): Promise<NodeChangeResult> {
    return this.http.post(`/api/admin/nodes/snapshots/${encodeURIComponent(id)}/restore`);
  }
  restartEngine(): Promise<{ status: string; mode: string }> {
    return this.http.post('/api/admin/engine/restart');
  }
}

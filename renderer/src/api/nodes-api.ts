/**
 * Node packages (spec "Nodes"): the engine's packages with their nodes, installing one from a
 * git URL (its output lands in the activity log), and the engine restart that loads it.
 */
import type { InstallResult, NodePackage } from '../../../server/contracts/nodes.contract.js';
import type { Http } from './http.js';

export type { InstallResult, NodePackage };

export interface NodeListing {
  packages: NodePackage[];
  total_nodes: number;
  total_packages: number;
}

export class NodesApi {
  constructor(private readonly http: Http) {}

  list(): Promise<NodeListing> {
    return this.http.get('/api/admin/nodes');
  }
  install(url: string): Promise<InstallResult & { engine_restart: string }> {
    return this.http.post('/api/admin/nodes/install', { url });
  }
  restartEngine(): Promise<{ status: string; mode: string }> {
    return this.http.post('/api/admin/engine/restart');
  }
}

/**
 * Engine node packages (`GET /api/admin/nodes`, `POST /api/admin/nodes/install`).
 */
/** A node package: the engine's nodes grouped by `python_module` (spec "Node package"). */
export interface NodePackage {
  name: string;
  nodes: string[];
  node_count: number;
}

export type InstallResult = { status: 'installed'; name: string; restart_required: true } | { status: 'already_installed'; name: string };

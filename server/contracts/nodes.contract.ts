/**
 * Engine node packages (`GET /api/admin/nodes`, `POST /api/admin/nodes/install`).
 */
import { z } from 'zod';

/** A node package: the engine's nodes grouped by `python_module` (spec "Node package"). */
export interface NodePackage {
  name: string;
  nodes: string[];
  node_count: number;
}

export type InstallResult = { status: 'installed'; name: string; restart_required: true } | { status: 'already_installed'; name: string };

/** `POST /api/admin/nodes/install`: the package's git URL (`repo_url` is accepted too); the installer checks its form. */
export const nodeInstallBody = z.object({ url: z.string().optional(), repo_url: z.string().optional() });

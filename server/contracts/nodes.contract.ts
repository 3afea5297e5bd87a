/**
 * Engine node packages (`GET /api/admin/nodes`, install with a preview, update, disable/enable,
 * uninstall, snapshots and their restore).
 */
import { z } from 'zod';

/** A node package: the engine's nodes grouped by `python_module` (spec "Node package"). */
export interface NodePackage {
  name: string;
  nodes: string[];
  node_count: number;
}

/** A package row of the Nodes page: the spec's fields plus what Studio knows of its folder. */
export interface NodePackageRow extends NodePackage {
  /** The commit checked out in its folder (null: Engine Core, or not a git clone). */
  commit: string | null;
  /** Its git origin (null when unknown). */
  url: string | null;
  /** A newer commit on the remote (`git ls-remote`, cached); null until known or for no remote. */
  update_available: boolean | null;
  /** The engine's log says it failed to import at its last start. */
  import_failed: boolean;
  /** The words of that failure, when there is one. */
  import_error: string | null;
  /** Renamed `<name>.disabled`, the engine's own convention: the engine skips it. */
  disabled: boolean;
  /** Ids of installed workflows whose `required_nodes` name it. */
  workflows: string[];
}

export interface VersionChangeItem {
  name: string;
  from: string;
  to: string;
}

/** The Python packages an install would add, upgrade or downgrade (pip's dry-run report). */
export interface PythonChanges {
  added: Array<{ name: string; version: string }>;
  upgraded: VersionChangeItem[];
  downgraded: VersionChangeItem[];
}

/** `{url, dry_run: true}` (or an update's dry run): what would change; nothing is written. */
export interface InstallPreview {
  status: 'preview';
  name: string;
  url: string;
  /** The commit that would be cloned (send it back with the install to get exactly this one). */
  commit: string;
  /** The commit installed now (an update's preview); null for a new install. */
  current_commit: string | null;
  python: PythonChanges;
  /** The held packages and their versions: never changed by a node install. */
  held: Record<string, string>;
}

/** What Studio checked after the change. */
export interface InstallVerification {
  /** Studio restarted the engine and checked it (false: an external engine). */
  verified: boolean;
  /** The package's node types the engine now lists. */
  node_types: string[];
  note: string | null;
}

export type InstallResult =
  | ({ status: 'installed' | 'updated'; name: string; commit: string; restart_required: boolean; snapshot_id: string; python: PythonChanges } & InstallVerification)
  | { status: 'already_installed'; name: string };

/** A stored snapshot: the engine's Python packages and each node package's commit. */
export interface NodeSnapshot {
  id: string;
  created_at: string;
  /** Why it was taken ("before installing X"). */
  reason: string;
  python: Record<string, string>;
  nodes: Array<{ name: string; commit: string | null; url: string | null; disabled: boolean }>;
}

export interface NodeSnapshotSummary {
  id: string;
  created_at: string;
  reason: string;
  python_packages: number;
  node_packages: Array<{ name: string; commit: string | null; disabled: boolean }>;
}

/** `POST /api/admin/nodes/install`: the package's git URL (`repo_url` is accepted too); the installer checks its form. */
const URL_REQUIRED = 'url is required (an https:// git URL)';
/** A package the node maps know: its folder name, install URL and node types. */
export interface MapPackage {
  name: string;
  url: string;
  node_types: string[];
}

/** One answer of `GET /api/admin/nodes/search?q=`: the matching node types first, at most a few. */
export interface NodeSearchHit {
  name: string;
  url: string;
  /** The node types that match the words, else the first few. */
  node_types: string[];
  total_types: number;
}

export const nodeSearchQuery = z.object({ q: z.string().trim().min(2, 'q: type at least 2 characters').max(100, 'q: at most 100 characters') });

export const nodeInstallBody = z.object({
  url: z.string(URL_REQUIRED).optional(),
  repo_url: z.string(URL_REQUIRED).optional(),
  /** Only report what would change. */
  dry_run: z.boolean().optional(),
  /** The commit a preview named: install exactly that one. */
  commit: z.string().regex(/^[0-9a-f]{40}$/, 'commit must be a full 40-character commit id').optional(),
  /** Install from this URL although the node map knows the package name under another (the user was asked). */
  confirm_source: z.boolean().optional(),
});

/** `POST /api/admin/nodes/{name}/update`. */
export const nodeUpdateBody = z.object({ dry_run: z.boolean().optional(), commit: z.string().regex(/^[0-9a-f]{40}$/).optional() });

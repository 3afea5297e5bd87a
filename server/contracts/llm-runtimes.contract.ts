/**
 * The llama.cpp runtimes page's wire (`/api/admin/llm/runtimes`, README "LLM runtimes").
 */
import { z } from 'zod';

export const runtimeInstallBody = z.object({
  /** An asset name of the newest release; default: the build Studio recommends for this machine. */
  asset: z.string().min(1).max(300).optional(),
  /** Make it the active runtime once it passed its smoke test (default true). */
  activate: z.boolean().optional(),
});

export const runtimeBuildBody = z.object({ activate: z.boolean().optional() });

export const runtimeActivateBody = z.object({ id: z.string({ error: 'required (an installed build id)' }).min(1).max(300) });

export interface InstalledRuntime {
  id: string;
  tag: string;
  variant: string;
  backend: string;
  origin: string;
  dir: string;
  path: string;
  version: string | null;
  installed_at: string;
  devices: string[];
  gpu_layers: number | null;
  reason: string | null;
  active: boolean;
}

export interface AvailableRuntime {
  asset: string;
  variant: string;
  backend: string;
  os: string;
  arch: string;
  size: number;
  digest: string | null;
  for_this_machine: boolean;
}

/** Where a build from source is: fetching the source, configure, compile n/N, link. */
export interface BuildStep {
  name: 'source' | 'configure' | 'compile' | 'link';
  /** The build tool's own counter (`[n/N]`), 0/0 before it counts. */
  done: number;
  total: number;
}

/** What a build from source will cost here, asked before it starts. */
export interface BuildEstimate {
  cores: number;
  seconds_low: number;
  seconds_high: number;
  /** Compile steps of the measured build. */
  steps: number;
  /** Disk the build needs at its peak, and what stays once it is done. */
  need_bytes: number;
  kept_bytes: number;
  free_bytes: number | null;
  enough_space: boolean;
  /** How the numbers were got. */
  basis: string;
}

export interface RuntimeJob {
  id: string;
  kind: 'install' | 'build';
  asset: string | null;
  variant: string;
  phase: 'downloading' | 'unpacking' | 'testing' | 'building' | 'installed' | 'failed' | 'cancelled';
  /** A build from source's step (null for a download). */
  step?: BuildStep | null;
  bytes: number;
  total: number;
  error: string | null;
  log: string[];
}

export interface RuntimesView {
  /** `LLM_BINARY` when set: it wins over the installed builds. */
  override: string | null;
  /** What the LLM server runs. */
  binary: string;
  active: string | null;
  previous: string | null;
  installed: InstalledRuntime[];
  machine: { os: string; arch: string; gpu_vendor: string | null; cuda_version: string | null; rocm_version: string | null } | null;
  available: { tag: string; published_at: string | null; builds: AvailableRuntime[]; recommended: { asset: string; variant: string } | null; reason: string } | null;
  available_error: string | null;
  /** A newer release than every installed build exists (nothing installs by itself). */
  update_available: boolean;
  source_build: { possible: boolean; reason: string; estimate: BuildEstimate | null };
  job: RuntimeJob | null;
}

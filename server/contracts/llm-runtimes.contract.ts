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

export interface RuntimeJob {
  id: string;
  kind: 'install' | 'build';
  asset: string | null;
  variant: string;
  phase: 'downloading' | 'unpacking' | 'testing' | 'building' | 'installed' | 'failed';
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
  source_build: { possible: boolean; reason: string };
  job: RuntimeJob | null;
}

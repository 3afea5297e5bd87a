/**
 * The setup page's wire (`/api/admin/setup…`): what Studio found (GPUs, engine installs, free
 * space), the install in progress, the versions kept for rollback, and the engine settings.
 */
import { z } from 'zod';
import type { GpuReport } from './gpu.contract.js';

/** The engine's sampler preview methods (the same list as ENGINE_PREVIEW_METHOD's; the setup service checks they agree). */
const PREVIEW_METHODS_WIRE = ['none', 'auto', 'latent2rgb', 'taesd'] as const;

/** The torch build an install would use, and why. */
export interface TorchChoice {
  backend: GpuReport['backend'];
  /** The wheel variant ("cu128", "rocm6.2", "cpu"), or null for the general package index's default build. */
  variant: string | null;
  /** Where torch comes from (the torch index's variant folder), or null: the general package index. */
  index_url: string | null;
  /** In plain words: why this build (or why the CPU). */
  reason: string;
  /** Disk space an install needs with this build (engine, environment and packages). */
  needs_bytes: number;
}

/** What a Python environment has of torch. */
export interface TorchCheck {
  /** torch's version, or null when it does not import. */
  torch: string | null;
  cuda: boolean;
  hip: string | null;
  mps: boolean;
  /** torch works for this machine's GPU (or, on a CPU box, imports at all). */
  works: boolean;
  /** Why not, in plain words (torch missing, built for the CPU on a GPU box, …). */
  problem: string | null;
}

export interface FoundInstall {
  /** The engine folder (holds `main.py`). */
  dir: string;
  /** Where it was found: `ENGINE_DIR`, `port` (an engine answering on ENGINE_PORT), `home`, `documents`, `desktop-app`, `stability-matrix`, `workspace`, `studio` (installed by Studio). */
  place: string;
  version: string | null;
  /** Its Python (the install's own environment when it has one), or null when none was found. */
  python: string | null;
  torch: TorchCheck | null;
  /** Its own `models/` folder, which can be added as an extra model source. */
  models_dir: string | null;
  /** It answers on ENGINE_PORT right now (can be used as an external engine). */
  running: boolean;
  /** It is the engine Studio uses now. */
  in_use: boolean;
  /** Why it cannot be used as it is (no Python found, the app's code folder is missing), or null. */
  problem: string | null;
}

export type InstallStepName = 'space' | 'clone' | 'environment' | 'torch' | 'requirements' | 'nodes' | 'check' | 'prove' | 'switch';

export interface InstallStep {
  name: InstallStepName;
  label: string;
  status: 'pending' | 'running' | 'done' | 'failed' | 'skipped';
  started_at: string | null;
  finished_at: string | null;
}

export interface InstallState {
  id: string;
  /** `install` (a new engine), `update` (a new version beside the old), `use` (a found install proven and switched to). */
  kind: 'install' | 'update' | 'use';
  version: string | null;
  status: 'running' | 'finished' | 'failed' | 'cancelled';
  steps: InstallStep[];
  /** The last lines of output (the page shows them; every line also went out over the WebSocket). */
  log: string[];
  error: string | null;
  started_at: string;
  finished_at: string | null;
  /** Seconds per finished step (clone, environment, packages, first start). */
  timings: Partial<Record<InstallStepName, number>>;
}

export interface EngineSettingsWire {
  extra_args: string[] | null;
  preview_method: (typeof PREVIEW_METHODS_WIRE)[number] | null;
  gpus: number[] | null;
  port: number | null;
}

export interface KeptVersion {
  dir: string;
  python: string;
  version: string | null;
  origin: 'installed' | 'found';
  chosen_at: string;
}

export interface SetupReport {
  /** Show the setup page at first start: no real engine is configured and the stand-in was not chosen. */
  first_start: boolean;
  /** The stand-in runs because it was kept on purpose ("Keep the stand-in"): the guide's engine step is done. */
  standin_kept: boolean;
  engine: {
    mode: 'standin' | 'managed' | 'external';
    mode_reason: string;
    status: string;
    dir: string | null;
    version: string | null;
    /** Where the choice came from: `setup` (stored on this page), `environment`, or `default`. */
    chosen_by: 'setup' | 'environment' | 'default';
    /** The last lines the engine printed when it would not start (empty otherwise). */
    error_lines: string[];
  };
  gpu: GpuReport;
  torch: TorchChoice;
  installs: FoundInstall[];
  disk: { dir: string; free_bytes: number | null; needs_bytes: number };
  install: InstallState | null;
  /** Earlier engines kept for rollback, newest first. */
  previous: KeptVersion[];
  settings: EngineSettingsWire;
  /** The repository releases come from (a tag of it is installed). */
  repository: string;
  /** The engine runs the settings stored here only after a restart: true while they differ from the running ones. */
  restart_needed: boolean;
}

export interface ReleaseList {
  repository: string;
  current: string | null;
  /** Release tags, newest first. */
  tags: string[];
  /** Tags newer than the current version. */
  newer: string[];
}

const versionTag = z.string().trim().min(1).max(100).regex(/^[A-Za-z0-9][A-Za-z0-9._+-]*$/, 'a release tag such as v0.3.40');

export const installBody = z.object({ version: versionTag.optional() }).strict();
export const updateBody = z.object({ version: versionTag }).strict();
export const useInstallBody = z
  .object({
    dir: z.string().min(1).max(4096),
    python: z.string().min(1).max(4096).optional(),
    mode: z.enum(['managed', 'external']).default('managed'),
    add_models: z.boolean().default(false),
  })
  .strict();
export const removeVersionBody = z.object({ dir: z.string().min(1).max(4096) }).strict();
export const settingsBody = z
  .object({
    extra_args: z.array(z.string().max(500)).max(64).nullable().optional(),
    preview_method: z.enum(PREVIEW_METHODS_WIRE).nullable().optional(),
    gpus: z.array(z.number().int().min(0).max(63)).max(64).nullable().optional(),
    port: z.number().int().min(1024).max(65535).nullable().optional(),
  })
  .strict();
export type SettingsBody = z.infer<typeof settingsBody>;

/** WebSocket `setup.install`: a step changed, or a line of output arrived. */
export interface SetupInstallMessage {
  id: string;
  status: InstallState['status'];
  step: InstallStepName | null;
  line?: string;
}

/**
 * The engine pool's routes (`/api/admin/engines`): request bodies and answers.
 */
import { z } from 'zod';

/** local: the engine as configured (managed, external or stand-in); gpu: one managed engine per GPU (ENGINE_GPUS); remote: a ComfyUI by URL; agent: another Studio with STUDIO_ROLE=agent. */
export type EngineKind = 'local' | 'gpu' | 'remote' | 'agent';
export type EngineStatus = 'online' | 'starting' | 'offline' | 'stopped';

/** `POST /api/admin/engines`: a ComfyUI by URL, or (with `key`) a Studio agent and its API key. */
export const addEngineBody = z.object({
  name: z.string().trim().min(1).max(80),
  url: z
    .string()
    .trim()
    .max(2048, 'url must be at most 2048 characters')
    .url()
    .refine((u) => /^https?:\/\//i.test(u), 'url must be http(s)')
    // The engine list, events and the log show the URL: a password in it would be shown too.
    .refine((u) => !/^[a-z]+:\/\/[^/]*@/i.test(u), 'url must not carry a user name or password'),
  key: z.string().min(1).max(500).optional(),
});
export type AddEngineBody = z.infer<typeof addEngineBody>;

/** One engine of `GET /api/admin/engines`. */
export interface EngineInfo {
  id: string;
  name: string;
  kind: EngineKind;
  url: string;
  status: EngineStatus;
  last_error: string | null;
  /** From its `system_stats`: the first device's name and VRAM (null before it answered). */
  gpu: { name: string; vram_total: number | null; vram_free: number | null } | null;
  /** The job it runs, and the ones prefetched in its own queue. */
  current_job: string | null;
  prefetched: string[];
  jobs_done: number;
  /** Sampler steps per second measured on its jobs (null before one ran). */
  steps_per_second: number | null;
  /** The model its last job loaded (a job using it again goes here first). */
  last_checkpoint: string | null;
  /** Each installed workflow this engine cannot run, and what it lacks. */
  lacks: Array<{ workflow_id: string; missing: string[] }>;
  /**
   * Agents only: the model files it lacks (in `lacks`) that this Studio's catalog has with a
   * SHA-256, which the agent can be asked to download (`POST /api/admin/engines/{id}/models/download`).
   */
  downloadable: string[];
  /** Remote engines and agents can be removed; the local and GPU engines come from configuration. */
  removable: boolean;
}

/** The warning every remote engine carries: ComfyUI has no authentication of its own. */
export const REMOTE_ENGINE_WARNING = 'ComfyUI has no authentication of its own: add an engine by URL only on a trusted network (an agent Studio checks its key).';

/** `POST /api/admin/engines/{id}/models/download`: a model file of this Studio's catalog the agent lacks. */
export const engineModelDownloadBody = z.object({ filename: z.string().trim().min(1).max(300) });

/** `POST /api/agent/models/download` (on an agent): a catalog file and the SHA-256 the asking Studio's catalog gives it. */
export const agentModelDownloadBody = z.object({
  filename: z.string().trim().min(1).max(300),
  sha256: z.string().regex(/^[0-9a-fA-F]{64}$/, 'sha256 must be 64 hex digits'),
});

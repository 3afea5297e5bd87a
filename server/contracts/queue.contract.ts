/**
 * Studio's queue routes (`/api/admin/queue/*`): request bodies and answers.
 */
import { z } from 'zod';

export const cancelBody = z.object({ prompt_id: z.string().min(1) });
export const moveBody = z.object({ prompt_id: z.string().min(1), position: z.number().int().min(0) });

/** `GET /api/admin/queue/state` (also the answer of pause, resume and move). */
export interface QueueState {
  paused: boolean;
  /** Jobs waiting in Studio (not yet handed to an engine). */
  waiting: number;
  /** Jobs an engine is running. */
  running: number;
  /** Each engine: the job it runs, the ones prefetched (submitted, waiting in the engine's queue). */
  engines: Array<{ id: string; running: string | null; prefetched: string[] }>;
}

/** `POST /api/admin/history/retry-stalled`. */
export interface RetryStalledResult {
  retried: Array<{ prompt_id: string; retry_of: string }>;
  errors: string[];
}

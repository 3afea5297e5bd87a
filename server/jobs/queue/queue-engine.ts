/**
 * An engine of the pool as Studio's queue sees it (`jobs.module.ts` builds one per pool member),
 * and how many jobs each holds.
 */
import type { EngineClient } from '../../engine/engine.client.js';
import type { ObjectInfo } from '../../engine/engine-graph.js';
import type { JobMonitor } from '../job-monitor.js';

/** Jobs an engine holds at once: the running one and one prefetched. */
export const ENGINE_SLOTS = 2;
/** A job goes back to the queue at most this often when its engine goes offline; then it fails. */
export const MAX_FAILOVERS = 2;

/** An engine of the pool, as the queue uses it. */
export interface QueueEngine {
  id: string;
  name: string;
  client: EngineClient;
  /** Reaches the engine also while Studio thinks it down (a cancel waits in its socket until it runs again). */
  cancelClient: EngineClient;
  /** Follows the jobs on this engine (its socket's messages). */
  monitor: JobMonitor;
  /** The `client_id` jobs are submitted with (their messages come to Studio's socket). */
  clientId: string;
  /** It answers: jobs may be handed to it. */
  online(): boolean;
  /** Its last known node types and model lists (null: not read yet). */
  objectInfo(): ObjectInfo | null;
  /** It reads Studio's input folder (else the inputs are uploaded to it at hand-over). */
  sharesFolders(): boolean;
}

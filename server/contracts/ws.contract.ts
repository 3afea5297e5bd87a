/**
 * The Studio WebSocket's message map: every text frame is `{type, data}` with `data` typed by
 * `type` here. The hub sends with these types and the renderer reads with them, so both ends agree.
 *
 * Binary frames carry preview images; their codec is `preview-frame.ts`.
 */
import type { BatchCellMessage, BatchSummary } from './batches.contract.js';
import type { StudioEvent } from './events.contract.js';
import type { JobRecord, ProgressObject } from './jobs.contract.js';
import type { SetupInstallMessage } from './setup.contract.js';
import type { TelemetrySample } from './system.contract.js';

/** What clients learn about the engine (mirrors the engine supervisor's state). */
export interface EngineStateMessage {
  mode: 'standin' | 'managed' | 'external';
  status: 'stopped' | 'starting' | 'running' | 'restarting' | 'crashed' | 'stopping' | 'unreachable';
  restarts: number;
  lastError: string | null;
  /** The last stderr lines of an engine that crashed (empty otherwise): why it did not start. */
  errorLines: string[];
}

export interface WsEventMap {
  /** First frame after the handshake; `time_zone` is the IANA zone job records' wall-clock times are in. */
  hello: { version: string; engine: EngineStateMessage; maintenance: boolean; time_zone: string };
  /** Every event of the event bus, as it happens. */
  event: StudioEvent;
  /** The engine's supervisor changed state. */
  'engine.state': EngineStateMessage;
  /** A job was submitted, started, finished or failed: the whole record. */
  'job.queued': JobRecord;
  'job.started': JobRecord;
  'job.completed': JobRecord;
  'job.failed': JobRecord;
  /** The engine lost the job, or went silent on it for JOB_STALL_MINUTES (the record's `error` says which). */
  'job.stalled': JobRecord;
  'job.cancelled': JobRecord;
  /** Its engine went offline while running it: back in Studio's queue (status `queued`). */
  'job.requeued': JobRecord;
  /** Live progress of a running job. */
  'job.progress': { prompt_id: string; progress: ProgressObject };
  /** Records removed by a history delete. */
  'job.deleted': { prompt_ids: string[] };
  /** A cell of a batch changed (its job was queued, started, finished): one message per cell. */
  'batch.cell': BatchCellMessage;
  /** A batch was made, paused, resumed, completed or cancelled: its summary. */
  'batch.state': BatchSummary;
  /** A telemetry sample, every few seconds (the history's newest point). */
  'telemetry.sample': TelemetrySample;
  /** An engine install, update or switch moved to a step, ended, or printed a line of output. */
  'setup.install': SetupInstallMessage;
}

export type WsMessageType = keyof WsEventMap;

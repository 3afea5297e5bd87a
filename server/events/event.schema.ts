/**
 * The event record of the spec, shared with the renderer (`import type` only there).
 */
export type Severity = 'info' | 'success' | 'warning' | 'error';

export const SEVERITIES: readonly Severity[] = ['info', 'success', 'warning', 'error'];

export interface StudioEvent {
  /** `evt_` + 8 hex characters. */
  id: string;
  type: string;
  /** ISO 8601 in Europe/Rome time with its offset. */
  timestamp: string;
  severity: Severity;
  message: string;
  data: Record<string, unknown>;
}

/** Event types of the spec, plus the ones Studio adds (engine, auth, system.*). */
export const EVENT_TYPES = [
  'system.backend.started',
  'system.backend.stopping',
  'system.updated',
  'system.migration',
  'system.startup',
  'system.security',
  'system.disk_full',
  'system.database',
  'auth.login.throttled',
  'auth.throttled',
  'engine.state',
  'engine.crashed',
  'job.queued',
  'job.started',
  'job.completed',
  'job.failed',
  'job.stalled',
  'job.retried',
  'job.deleted',
  'model.deleted',
  'model.metadata.fetched',
  'model.metadata.failed',
  'model.metadata.batch.completed',
  'llm.model.deleted',
  'assets.uploaded',
  'assets.deleted',
  'workflow.invalid',
  'nodes.installed',
  'nodes.install.failed',
  'llm.state',
  'llm.crashed',
  'llm.parked',
  'llm.resumed',
  'chatbot.state',
  'chatbot.chat.allowed',
  'chatbot.key.locked',
] as const;

export type KnownEventType = (typeof EVENT_TYPES)[number];

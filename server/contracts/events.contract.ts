/**
 * The event record of the spec, shared with the renderer (`import type` only there), and the one
 * list of event types: `EventBus.emit` accepts only these (an unknown type is a compile error),
 * and the README's event table is
 * checked against them by a test.
 */
import { z } from 'zod';
export type Severity = 'info' | 'success' | 'warning' | 'error';

const SEVERITIES: readonly Severity[] = ['info', 'success', 'warning', 'error'];

/** Every event type Studio emits, with what it means: the spec's, plus the ones Studio adds. */
export const EVENT_TYPE_MEANINGS = {
  'system.backend.started': 'Studio started; data includes `version`',
  'system.updated': 'An update was applied',
  'system.migration': 'Database migrations were applied at boot',
  'system.startup': 'Unfinished jobs were checked against the engine (followed, finished, stalled)',
  'system.security': 'Studio stays on loopback because the API key is weak',
  'system.maintenance': 'Maintenance mode turned on or off around an update',
  'system.update.failed': 'An update failed; nothing was changed',
  'system.restart': 'Studio is about to restart',
  'system.disk_full': "A request failed because the disk holding Studio's data is full (at most one a minute)",
  'system.database': "A request failed because Studio's database file is damaged (at most one a minute)",
  'system.safe_mode': 'Studio started in safe mode: its database is damaged (what, the kept copy, how to restore)',
  'auth.throttled': 'Too many wrong API keys; key checks paused',
  'auth.signed_in': 'Someone signed in (the API key, or a name and password); data: `user_id`, `name`, `address`',
  'auth.sign_in_failed': 'A sign-in failed (wrong key, or wrong name or password); data: `address`, the name tried (`tried_name`)',
  'users.added': 'A person was added; data: `user_id` and `name` of who added them, `target_id`, `role`',
  'users.changed': 'A person was changed (name, role, password, quotas, allow-list, enabled); data: who, `target_id`, `fields`',
  'users.disabled': 'A person was disabled: their sessions ended, their sockets closed, their records kept',
  'users.key.created': 'A person made a personal API key; data: `user_id`, `key_id`, `scope` (never the key)',
  'users.key.revoked': 'A personal API key was revoked; its sockets closed',
  'audit.admin_request': 'An owner or admin change went through the API (or was refused): `method`, `path`, `status`, `user_id`, `name`, and for settings, node installs and engines added `subject` (which one)',
  'audit.job_action': 'An owner or admin deleted, cancelled, starred, moved or retried another person\'s job: `action`, `prompt_id`, `owner_id` (whose job), `user_id`, `name` (who did it)',
  'settings.env.updated': 'An editable environment variable was changed (never the value)',
  'settings.revealed': 'Secret settings were revealed',
  'settings.reveal.denied': 'A request to reveal secrets gave a wrong API key',
  'engine.state': 'The engine changed state',
  'engine.crashed': 'The engine crashed and was not restarted',
  'engine.install.started': 'An engine install, update or switch to a found install started (setup page)',
  'engine.install.step': 'An engine install moved to its next step (space, clone, environment, torch, requirements, nodes, check, prove, switch)',
  'engine.install.failed': 'An engine install failed; its folder was removed and the engine in use was left as it was',
  'engine.install.cancelled': 'An engine install was cancelled; its folder was removed',
  'engine.proved': 'A new engine started on a port of its own and ran the smoke prompt',
  'engine.switched': 'Studio switched to another engine (installed, found, or rolled back); it takes over when Studio restarts',
  'engine.settings.updated': 'Engine settings were changed on the setup page (applied at the next engine restart)',
  'engine.version.removed': 'A kept engine version was removed',
  'engine.added': 'An engine was added to the pool by URL (a ComfyUI elsewhere, or a Studio agent)',
  'engine.removed': 'An engine added by URL was removed from the pool',
  'engine.offline': 'An engine of the pool stopped answering (its jobs go to another engine)',
  'engine.online': 'An engine of the pool answers (again)',
  'engine.model_download': 'A Studio agent of the pool was asked to download a catalog model its engine lacks (it verifies the SHA-256)',
  'engine.restarted': "A Studio agent said over its relay that its engine restarted (perhaps faster than the health interval): the jobs it held went back to the queue like a failover",
  'engine.strays_removed': 'An engine came back holding jobs Studio had given to another engine meanwhile: they were taken off it (no job runs twice)',
  'job.ran_twice': 'A job failover moved also finished on the engine that lost it (cut off, it kept running): Studio kept one result; the event names the engine whose GPU time was wasted',
  'job.requeued': 'Its engine went offline: the job went back to the front of Studio\'s queue for another engine',
  'job.queued': 'Job submitted to the engine',
  'job.started': 'Job execution began',
  'job.completed': 'Job finished; message `Job completed in <n>s`',
  'job.failed': 'Job failed',
  'job.stalled': 'Job stalled: the engine lost it or stopped making progress (one event per job)',
  'job.cancelled': 'Job cancelled from Studio\'s queue (waiting, handed to the engine, or running)',
  'job.retried': 'Job retried from an earlier attempt',
  'batch.created': 'A batch (grid, list or CSV) was made and its cells queued in the batch lane: `batch_id`, `kind`, `cells`, `user_id`',
  'batch.paused': 'A batch was paused: none of its waiting cells starts until it is resumed (the ones on an engine finish)',
  'batch.resumed': 'A paused batch was resumed',
  'batch.completed': 'Every cell of a batch finished: `batch_id`, `done`, `failed`',
  'batch.cancelled': 'A batch was cancelled: its unfinished cells were cancelled (`cancelled`: how many)',
  'queue.paused': 'Studio\'s queue paused: no new job is handed to an engine',
  'queue.resumed': 'Studio\'s queue resumed',
  'queue.restart_retried': 'Studio restarted and retried the jobs it left unfinished (QUEUE_RESUME_AFTER_RESTART): `{retried, retry_of}`, in the old queue order',
  'job.deleted': 'Job record and outputs deleted',
  'workflow.invalid': 'A workflow cannot be used',
  'workflows.synced': 'Workflows synced from the update repository',
  'models.synced': 'Catalogs synced from the update repository',
  'model.deleted': 'Model file deleted',
  'download.queued': 'A model download was queued',
  'download.failed': 'A model download failed; data includes the `reason`',
  'download.done': 'A model download finished',
  'download.verified': "A downloaded file matched its catalog's SHA-256",
  'model.metadata.fetched': 'Metadata fetched for a model',
  'model.metadata.failed': 'Metadata fetch failed',
  'model.metadata.batch.completed': 'Batch metadata fetch finished',
  'llm.model.deleted': 'LLM model file deleted',
  'assets.uploaded': 'Input files uploaded',
  'assets.deleted': 'Asset files deleted',
  'gallery.fetched': "A model's gallery was fetched",
  'gallery.failed': "A model's gallery could not be fetched",
  'nodes.installed': 'A node package was installed',
  'nodes.install.failed': 'A node package could not be installed',
  'llm.state': 'The LLM server started, stopped or failed to start',
  'llm.crashed': 'The LLM server crashed',
  'llm.parked': 'The LLM server was parked while image jobs run',
  'llm.resumed': 'The LLM server came back after the image jobs',
  'llm.runtime.installed': 'A llama.cpp build passed its smoke test and was installed',
  'llm.runtime.refused': 'A llama.cpp build was not installed (download, digest, unpack or smoke test failed)',
  'llm.runtime.activated': 'Another installed llama.cpp build became the active LLM runtime',
  'chatbot.state': 'The chat bot started or stopped',
  'chatbot.chat.allowed': 'A chat sent the API key or a personal key and may use the chat bot',
  'chatbot.chat.removed': 'A chat admitted with the API key was removed from the chat bot',
  'chatbot.chats.cleared': 'The API key changed: chats admitted with the old one must send the new one',
  'chatbot.key.locked': 'Too many wrong keys were sent to the chat bot',
  'disk.low_space': "Free space on a volume holding Studio's data fell under DISK_WARN_FREE_GB",
  'disk.duplicates.linked': 'Copies of a model file were replaced by hard links to one file',
  'disk.orphans.deleted': 'Unused files chosen on the Disk page were deleted',
  'disk.retention.ran': 'The retention rule removed old job outputs',
  'notify.failed': 'A notification was not delivered after its retries: `target_id`, `user_id` (whose target), `event`',
} as const satisfies Record<string, string>;

export type KnownEventType = keyof typeof EVENT_TYPE_MEANINGS;

/** The event types, in the order above. */
export const EVENT_TYPES = Object.keys(EVENT_TYPE_MEANINGS) as KnownEventType[];

export interface StudioEvent {
  /** `evt_` + 8 hex characters. */
  id: string;
  /** A `KnownEventType` when emitted; a string because `events.jsonl` may hold an older version's types. */
  type: string;
  /** ISO 8601 in Europe/Rome time with its offset. */
  timestamp: string;
  severity: Severity;
  message: string;
  data: Record<string, unknown>;
}

const commaList = z
  .string()
  .optional()
  .transform((v) => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean));

export const eventsQuery = z.object({
  limit: z.coerce.number().int().min(0).max(1000).default(100),
  // The spec filters: a type this Studio does not know matches nothing (a client written against
  // a newer Studio still gets an answer from an older one).
  types: commaList,
  severity: commaList.pipe(z.array(z.enum(SEVERITIES as [Severity, ...Severity[]]))),
  /** Only the events of this person (`data.user_id`); owners and admins only (issue 43). */
  user: z.string().trim().min(1).max(100).optional(),
});

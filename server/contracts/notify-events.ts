/**
 * The events a notification target may ask for, with no zod: the renderer imports these values
 * (the page's checkboxes) without the schemas.
 */

/** The events a target may ask for: Studio's own event types, so the event log and a message agree. */
export const NOTIFY_EVENTS = ['job.completed', 'job.failed', 'batch.completed', 'download.done', 'download.failed', 'disk.low_space'] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

/** How each event is named on the page. */
export const NOTIFY_EVENT_LABELS: Record<NotifyEvent, string> = {
  'job.completed': 'Job done',
  'job.failed': 'Job failed',
  'batch.completed': 'Batch done',
  'download.done': 'Download done',
  'download.failed': 'Download failed',
  'disk.low_space': 'Disk low',
};

/** The events that concern the whole box, not one person's work: only the owner's and admins' targets get them. */
export const BOX_EVENTS: readonly NotifyEvent[] = ['download.done', 'download.failed', 'disk.low_space'];

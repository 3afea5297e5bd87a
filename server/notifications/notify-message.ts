/**
 * What a notification says, built once per event from Studio's event and (for a job) its record:
 * a title, a line of text, a link to the page the event is about, and the job's thumbnail.
 */
import type { StudioEvent } from '../contracts/events.contract.js';
import type { JobRecord } from '../contracts/jobs.contract.js';
import type { NotifyEvent } from '../contracts/notifications.contract.js';

export interface NotifyMessage {
  event: NotifyEvent | 'test';
  title: string;
  text: string;
  /** The Studio page the event is about (null: none). */
  link: string | null;
  /** ntfy tags (emoji short codes on the phone). */
  tags: string[];
  urgent: boolean;
  /** The job's thumbnail (JPEG), when the event is about a job that has an output. */
  image: { bytes: Buffer; filename: string } | null;
  /** The event's own fields, as the event log has them (webhooks pass them on). */
  data: Record<string, unknown>;
}

export interface MessageSources {
  /** Where Studio is reached from a phone or another machine (no trailing slash). */
  baseUrl: () => string;
  job: (promptId: string) => JobRecord | null;
  /** The JPEG thumbnail of a job's output; null when it has none. */
  thumbnail: (job: JobRecord) => Promise<Buffer | null>;
}

const TAGS: Record<NotifyEvent, string[]> = {
  'job.completed': ['white_check_mark'],
  'job.failed': ['x'],
  'batch.completed': ['white_check_mark', 'card_file_box'],
  'download.done': ['inbox_tray'],
  'download.failed': ['warning'],
  'disk.low_space': ['warning', 'floppy_disk'],
};

export async function messageFor(event: StudioEvent & { type: NotifyEvent }, sources: MessageSources): Promise<NotifyMessage> {
  const base = sources.baseUrl();
  const data = event.data;
  const promptId = typeof data.prompt_id === 'string' ? data.prompt_id : null;
  const job = promptId ? sources.job(promptId) : null;
  const jobName = job?.workflow_name ?? job?.workflow_id ?? 'Job';
  const image = job?.output ? await sources.thumbnail(job).catch(() => null) : null;
  const common = { event: event.type, tags: TAGS[event.type], urgent: false, image: image ? { bytes: image, filename: `${job!.prompt_id}.jpg` } : null, data };
  switch (event.type) {
    case 'job.completed':
      return { ...common, title: `${jobName} is done`, text: event.message, link: promptId ? `${base}/jobs/${promptId}` : null };
    case 'job.failed':
      return { ...common, title: `${jobName} failed`, text: event.message, link: promptId ? `${base}/jobs/${promptId}` : null, urgent: true };
    case 'batch.completed':
      return { ...common, title: 'Batch done', text: event.message, link: typeof data.batch_id === 'string' ? `${base}/batches/${data.batch_id}` : null };
    case 'download.done':
      return { ...common, title: 'Download done', text: event.message, link: `${base}/models` };
    case 'download.failed':
      return { ...common, title: 'Download failed', text: event.message, link: `${base}/models`, urgent: true };
    case 'disk.low_space':
      return { ...common, title: 'Disk space is low', text: event.message, link: `${base}/disk`, urgent: true };
  }
}

/** The message the Test button sends. */
export function testMessage(baseUrl: string, targetName: string): NotifyMessage {
  return {
    event: 'test',
    title: 'Studio test notification',
    text: `If you read this, "${targetName}" works: Studio will tell you here when the events you chose happen.`,
    link: `${baseUrl}/notifications`,
    tags: ['bell'],
    urgent: false,
    image: null,
    data: {},
  };
}

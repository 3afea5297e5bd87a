/**
 * Follows one run for a chat: a single progress message edited as the job moves (at most one
 * edit per `minEditMs`, and none when the text would not change, since the platform limits
 * edits and answers an identical edit with an error), then the result as a photo, a video or a
 * document, or the failure in plain words. Runs in the background so the chat stays responsive.
 */
import type { Logger } from '../logging.js';
import type { Clock } from '../process/clock.js';
import { ChatPlatformError, type ChatPlatformClient, type MediaKind } from './chat-platform.client.js';
import { explain } from './explain.js';
import { StudioApiError, type OutputFile, type RunStatus, type StudioApiClient } from './studio-api.client.js';

/** Multipart upload limits of the platform: 10 MB for a photo, 50 MB for any other file. */
export const PHOTO_LIMIT_BYTES = 10 * 1024 * 1024;
export const FILE_LIMIT_BYTES = 50 * 1024 * 1024;
/** Status polls that may fail in a row (Studio restarting) before the chat is told. */
const MAX_STATUS_FAILURES = 30;

export interface RunReporterDeps {
  platform: ChatPlatformClient;
  studio: StudioApiClient;
  signal: AbortSignal;
  logger: Logger;
  pollMs: number;
  minEditMs: number;
  /** The edit throttle's time and the waits between status polls. */
  clock: Clock;
}

/** Follows runs and reports them to their chats. */
export class RunReporter {
  private readonly tasks = new Set<Promise<void>>();

  constructor(private readonly deps: RunReporterDeps) {}

  /** Start following `promptId` for `chatId` in the background. */
  follow(chatId: number, title: string, promptId: string): void {
    const task = this.report(chatId, title, promptId).catch((err: unknown) => {
      if (!this.deps.signal.aborted) this.deps.logger.error(`chat bot: reporting ${promptId} failed`, err);
    });
    this.tasks.add(task);
    void task.finally(() => this.tasks.delete(task));
  }

  /** Wait for the reports in flight (they end soon after the bot's signal aborts). */
  async drain(): Promise<void> {
    await Promise.all([...this.tasks]);
  }

  private async report(chatId: number, title: string, promptId: string): Promise<void> {
    const { platform, studio, signal, clock } = this.deps;
    const started = clock.now();
    let shown = `⏳ ${title}: queued`;
    const messageId = await platform.sendMessage(chatId, shown);
    let editedAt = clock.now();
    const edit = async (text: string, final: boolean) => {
      if (text === shown) return;
      const wait = this.deps.minEditMs - (clock.now() - editedAt);
      if (wait > 0) {
        if (!final) return;
        await clock.sleep(wait, signal);
      }
      if (signal.aborted) return;
      await platform.editMessageText(chatId, messageId, text);
      shown = text;
      editedAt = clock.now();
    };

    let failures = 0;
    while (!signal.aborted) {
      let status: RunStatus;
      try {
        status = await studio.status(chatId, promptId);
        failures = 0;
      } catch (err) {
        if (signal.aborted) return;
        // Access ended (the chat's key revoked, its person disabled): no point asking again.
        const ended = err instanceof StudioApiError && err.status === 401;
        if (++failures < MAX_STATUS_FAILURES && !ended) {
          await clock.sleep(this.deps.pollMs, signal);
          continue;
        }
        await edit(`⚠️ ${title}: I lost track of the job (${explain(err)}). It may still finish; look in Studio.`, true);
        return;
      }
      if (status.status === 'completed') {
        const seconds = Math.round((clock.now() - started) / 1000);
        const note = await this.deliver(chatId, title, status.outputs);
        await edit(`✅ ${title}: done in ${seconds} s${note ? `. ${note}` : ''}`, true);
        return;
      }
      if (status.status === 'error') {
        await edit(`❌ ${title} failed: ${status.error ?? 'the engine reported an error'}`, true);
        return;
      }
      await edit(progressText(title, status), false);
      await clock.sleep(this.deps.pollMs, signal);
    }
  }

  /** Send the primary output; returns a note for the progress message when it could not be sent. */
  private async deliver(chatId: number, title: string, outputs: Record<string, OutputFile>): Promise<string | null> {
    // Video first (the spec's result rule), then an image, then whatever else the job made.
    const file = outputs.video ?? outputs.image ?? Object.values(outputs)[0];
    if (!file) return 'The job finished without an output file.';
    const { platform } = this.deps;
    try {
      const { bytes, size, contentType } = await this.deps.studio.view(chatId, file, FILE_LIMIT_BYTES);
      const kind = bytes ? mediaKind(contentType, size) : null;
      if (!bytes || !kind) return `The result (${megabytes(size)} MB) is larger than the ${megabytes(FILE_LIMIT_BYTES)} MB the chat allows; find ${file.filename} in Studio's outputs.`;
      await platform.uploading(chatId, kind);
      try {
        await platform.sendFile(chatId, kind, bytes, file.filename, title);
      } catch (err) {
        // The platform refuses some photos (dimensions, aspect ratio over 20); a document has no such rules.
        if (kind !== 'photo' || !(err instanceof ChatPlatformError) || err.kind !== 'rejected') throw err;
        await platform.sendFile(chatId, 'document', bytes, file.filename, title);
      }
      return null;
    } catch (err) {
      if (this.deps.signal.aborted) throw err;
      return `The result could not be sent (${explain(err)}); find ${file.filename} in Studio's outputs.`;
    }
  }
}

/** Photo up to 10 MB, video up to 50 MB, a document for anything else up to 50 MB; null above. */
export function mediaKind(contentType: string, size: number): MediaKind | null {
  if (size > FILE_LIMIT_BYTES) return null;
  if (/^image\/(png|jpeg|webp)/.test(contentType) && size <= PHOTO_LIMIT_BYTES) return 'photo';
  if (/^video\/(mp4|webm|quicktime)/.test(contentType)) return 'video';
  return 'document';
}

/** The progress line: a bar, the step and the time left when known. */
export function progressText(title: string, status: RunStatus): string {
  if (status.status === 'pending') {
    return `⏳ ${title}: waiting in the queue${status.queue_position ? ` (position ${status.queue_position})` : ''}`;
  }
  if (status.status !== 'running') return `⏳ ${title}`;
  const percent = Math.max(0, Math.min(100, Math.round(status.percent ?? 0)));
  const filled = Math.round(percent / 10);
  const bar = '▓'.repeat(filled) + '░'.repeat(10 - filled);
  const parts = [`🎨 ${title}: ${bar} ${percent}%`];
  if (status.node_title) parts.push(status.node_title);
  if (status.total_steps) parts.push(`step ${status.step ?? 0}/${status.total_steps}`);
  if (status.eta_seconds != null && status.eta_seconds > 0) parts.push(`about ${Math.ceil(status.eta_seconds)} s left`);
  return parts.join(' · ');
}

function megabytes(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}

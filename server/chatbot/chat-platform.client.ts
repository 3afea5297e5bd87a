/**
 * The chat platform's bot API, reached through grammY's raw API client with
 * `apiRoot` from config. Errors become `ChatPlatformError`s with a kind the callers act on:
 * 429 waits exactly `retry_after`, network and 5xx errors are retried with backoff, 401/404 mean
 * the token is wrong (fatal), other 4xx are refused requests that must not be repeated.
 */
import type { Api } from 'grammy';
import type { InlineKeyboardMarkup, Update } from 'grammy/types';
import { backoffDelay, type BackoffPolicy } from '../process/backoff.js';
import { redactSecrets } from '../redact.js';
import type { Clock } from '../process/clock.js';
import type { ChatbotLibrary } from './chatbot-library.js';

/** Rows of inline buttons: label and callback data (at most 64 bytes, so a short key). */
export type Keyboard = ReadonlyArray<ReadonlyArray<{ text: string; data: string }>>;

export type PlatformErrorKind = 'rate_limited' | 'fatal' | 'network' | 'rejected';

/** A failed call to the chat platform, classified. */
export class ChatPlatformError extends Error {
  constructor(
    readonly kind: PlatformErrorKind,
    message: string,
    readonly retryAfterS: number | null = null,
  ) {
    super(message);
  }
}

export type MediaKind = 'photo' | 'video' | 'document';

export interface ChatPlatformClientOptions {
  lib: ChatbotLibrary;
  token: string;
  apiRoot: string;
  /** Aborted when the bot stops: every wait and request in flight ends with it. */
  signal: AbortSignal;
  /** The waits after a 429 or a network error. */
  clock: Clock;
}

/**
 * grammY types its signals with the `abort-controller` shim of old Node versions; at runtime its
 * node-fetch accepts Node's own AbortSignal (it checks the class name), so the types are bridged here.
 */
type GrammySignal = NonNullable<Parameters<Api['getFile']>[1]>;
function grammySignal(signal: AbortSignal): GrammySignal {
  return signal as unknown as GrammySignal;
}

/** How often a send is tried again after a 429 or a network error before giving up. */
const SEND_RETRIES = 4;
/** Waits between retries after network errors: 0.5, 1, 2, 4 s (the cap is the fourth wait). */
const NETWORK_BACKOFF: BackoffPolicy = { baseMs: 500, maxMs: 4000 };
/** The platform serves bot downloads (`getFile`) of at most 20 MB. */
const DOWNLOAD_LIMIT_BYTES = 20 * 1024 * 1024;

/** The bot API calls the chat bot makes. */
export class ChatPlatformClient {
  private readonly api: Api;

  constructor(private readonly options: ChatPlatformClientOptions) {
    // Long polls last up to 50 s; uploads of 50 MB need longer than grammY's default would allow to fail fast.
    this.api = new options.lib.Api(options.token, { apiRoot: options.apiRoot, timeoutSeconds: 120 });
  }

  /** One long poll. Not retried here: the poll loop owns backoff and its visible state. */
  async getUpdates(offset: number, timeoutS: number, signal: AbortSignal): Promise<Update[]> {
    try {
      return await this.api.getUpdates({ offset, timeout: timeoutS, allowed_updates: ['message', 'callback_query'] }, grammySignal(signal));
    } catch (err) {
      throw this.classify(err);
    }
  }

  /** Send a text message (optionally with buttons); returns its message id. */
  async sendMessage(chatId: number, text: string, keyboard?: Keyboard): Promise<number> {
    const message = await this.call((signal) => this.api.sendMessage(chatId, clip(text, 4096), { reply_markup: markup(keyboard) }, grammySignal(signal)));
    return message.message_id;
  }

  /** Replace a message's text; "message is not modified" counts as done. */
  async editMessageText(chatId: number, messageId: number, text: string, keyboard?: Keyboard): Promise<void> {
    try {
      await this.call((signal) => this.api.editMessageText(chatId, messageId, clip(text, 4096), { reply_markup: markup(keyboard) }, grammySignal(signal)));
    } catch (err) {
      if (err instanceof ChatPlatformError && /not modified/i.test(err.message)) return;
      throw err;
    }
  }

  /** Stop the button's spinner (the client shows one until this is called). */
  async answerCallbackQuery(id: string, text?: string): Promise<void> {
    await this.call((signal) => this.api.answerCallbackQuery(id, text ? { text: clip(text, 200) } : {}, grammySignal(signal)));
  }

  /** Delete a message; used for the one that carried the API key. Best effort. */
  async deleteMessage(chatId: number, messageId: number): Promise<boolean> {
    return this.call((signal) => this.api.deleteMessage(chatId, messageId, grammySignal(signal))).catch(() => false);
  }

  /** Show "sending a photo…" (or video, file) while an upload runs. Best effort. */
  async uploading(chatId: number, kind: MediaKind): Promise<void> {
    const action = kind === 'photo' ? 'upload_photo' : kind === 'video' ? 'upload_video' : 'upload_document';
    await this.api.sendChatAction(chatId, action, {}, grammySignal(this.options.signal)).catch(() => undefined);
  }

  /** Upload a file as a photo, a video or a document (multipart). */
  async sendFile(chatId: number, kind: MediaKind, data: Uint8Array, filename: string, caption: string): Promise<void> {
    const { InputFile } = this.options.lib;
    // A fresh InputFile per attempt: its data is consumed by an upload.
    const file = () => new InputFile(data, filename);
    const other = { caption: clip(caption, 1024) };
    await this.call<unknown>((signal) => {
      if (kind === 'photo') return this.api.sendPhoto(chatId, file(), other, grammySignal(signal));
      if (kind === 'video') return this.api.sendVideo(chatId, file(), { ...other, supports_streaming: true }, grammySignal(signal));
      return this.api.sendDocument(chatId, file(), other, grammySignal(signal));
    });
  }

  /** Fetch a file a user sent (getFile, then the file URL). */
  async downloadFile(fileId: string): Promise<Uint8Array> {
    const file = await this.call((signal) => this.api.getFile(fileId, grammySignal(signal)));
    if (!file.file_path) throw new ChatPlatformError('rejected', 'The chat platform did not give a download path for the file');
    if ((file.file_size ?? 0) > DOWNLOAD_LIMIT_BYTES) throw new ChatPlatformError('rejected', 'file is too big');
    const url = `${this.options.apiRoot}/file/bot${this.options.token}/${file.file_path}`;
    let res: Response;
    try {
      res = await fetch(url, { signal: this.options.signal });
    } catch (err) {
      throw new ChatPlatformError('network', `file download failed: ${(err as Error).message}`);
    }
    if (!res.ok) throw new ChatPlatformError(res.status >= 500 ? 'network' : 'rejected', `file download answered ${res.status}`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (bytes.byteLength > DOWNLOAD_LIMIT_BYTES) throw new ChatPlatformError('rejected', 'file is too big');
    return bytes;
  }

  /** Run one API call, waiting out 429s (exactly `retry_after`) and network errors (backoff). */
  private async call<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const { signal } = this.options;
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn(signal);
      } catch (raw) {
        const err = this.classify(raw);
        if (signal.aborted || attempt >= SEND_RETRIES) throw err;
        if (err.kind === 'rate_limited') await this.options.clock.sleep((err.retryAfterS ?? 1) * 1000, signal);
        else if (err.kind === 'network') await this.options.clock.sleep(backoffDelay(attempt + 1, NETWORK_BACKOFF), signal);
        else throw err;
      }
    }
  }

  /** grammY's errors → our kinds, with the bot token masked: its URLs carry it in their path. */
  private classify(err: unknown): ChatPlatformError {
    if (err instanceof ChatPlatformError) return err;
    const kinded = this.kindOf(err);
    return new ChatPlatformError(kinded.kind, redactSecrets(kinded.message, [this.options.token]), kinded.retryAfterS);
  }

  private kindOf(err: unknown): ChatPlatformError {
    const { GrammyError, HttpError } = this.options.lib;
    if (err instanceof GrammyError) {
      const code = err.error_code;
      if (code === 429) return new ChatPlatformError('rate_limited', err.description, err.parameters.retry_after ?? 1);
      if (code === 401 || code === 404) return new ChatPlatformError('fatal', `the chat platform rejected the bot token (${code} ${err.description})`);
      if (code >= 500) return new ChatPlatformError('network', `the chat platform answered ${code} ${err.description}`);
      return new ChatPlatformError('rejected', err.description);
    }
    if (err instanceof HttpError) return new ChatPlatformError('network', `the chat platform could not be reached (${describeCause(err.error)})`);
    return new ChatPlatformError('network', err instanceof Error ? err.message : String(err));
  }
}

function markup(keyboard: Keyboard | undefined): InlineKeyboardMarkup | undefined {
  if (!keyboard) return undefined;
  return { inline_keyboard: keyboard.map((row) => row.map((b) => ({ text: b.text, callback_data: b.data }))) };
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function describeCause(cause: unknown): string {
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return typeof code === 'string' ? `${code}: ${cause.message}` : cause.message;
  }
  return String(cause);
}

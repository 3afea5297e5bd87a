/**
 * HTTP client of the engine (ComfyUI's REST routes). Every call but `view`'s body has a timeout:
 * short for the calls that should be quick, longer for the node list, long only for uploads.
 * Network failures become `EngineUnreachableError`, a rejected prompt `EngineValidationError`;
 * while Studio already knows the engine cannot answer (`engine-availability.ts`), calls fail at
 * once, and calls in flight are cut short, with `EngineUnavailableError` (`engine-errors.ts`).
 * The shapes are in `engine-protocol.ts`.
 */
import http from 'node:http';
import https from 'node:https';
import crypto from 'node:crypto';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { describeRequestError, localRequest, type LocalResponse } from '../process/local-http.js';
import type { ObjectInfo } from './engine-graph.js';
import type { EngineAvailability } from './engine-availability.js';
import { EngineHttpError, EngineUnavailableError, EngineUnreachableError, EngineValidationError } from './engine-errors.js';
import type {
  EngineNodeErrors,
  EngineQueue,
  EngineQueueRaw,
  EngineSystemStats,
  EngineValidationBody,
  HistoryEntry,
  SubmitPromptRequest,
  SubmitPromptResponse,
  UploadedImage,
  UploadImageOptions,
  ViewRequest,
  ViewStream,
} from './engine-protocol.js';

export interface EngineClientOptions {
  /** `http://127.0.0.1:8188`, no trailing path. */
  baseUrl: string;
  /** Timeout of ordinary calls, and of `view` until the response headers arrive. */
  timeoutMs?: number;
  /** What Studio knows of the engine's state; without it every call is tried. */
  availability?: EngineAvailability;
  /** Sent with every call: an agent Studio's `X-API-Key`. */
  headers?: Record<string, string>;
}

/** What a call sends: method, headers and a text body (JSON). */
interface SendInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Readable;
}

const DEFAULT_TIMEOUT_MS = 10_000;
/** Timeout of `object_info` (multi-MB, computed live by the engine). */
const NODE_INFO_TIMEOUT_MS = 30_000;
/** Timeout of uploads (an input video can be large). */
const SLOW_TIMEOUT_MS = 120_000;

export class EngineClient {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly availability: EngineAvailability | undefined;
  private readonly headers: Record<string, string>;
  /** Aborted (and replaced) each time the engine is lost: ends every call in flight. */
  private lost = new AbortController();

  constructor(opts: EngineClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.availability = opts.availability;
    this.headers = opts.headers ?? {};
    this.availability?.onLost((reason) => {
      const lost = this.lost;
      this.lost = new AbortController();
      lost.abort(new EngineUnavailableError('', reason));
    });
  }

  /** True unless Studio knows the engine cannot answer now (crashed, restarting, not answering its health check). */
  isAvailable(): boolean {
    return !this.availability?.unavailableReason();
  }

  /** Throw `EngineUnavailableError` when Studio knows the engine cannot answer now (before slow work that needs it). */
  assertAvailable(): void {
    const reason = this.availability?.unavailableReason();
    if (reason) throw new EngineUnavailableError('', reason);
  }

  /** `GET /system_stats`: versions and devices; also the cheap liveness probe. */
  async systemStats(): Promise<EngineSystemStats> {
    return (await this.json('/system_stats')) as EngineSystemStats;
  }

  /** `GET /object_info`: every node class. Heavy: cache it per engine start. */
  async objectInfo(): Promise<ObjectInfo> {
    return (await this.json('/object_info', {}, NODE_INFO_TIMEOUT_MS)) as ObjectInfo;
  }

  /** `POST /prompt`. Throws `EngineValidationError` on 400 with the engine's node errors. */
  async submitPrompt(req: SubmitPromptRequest): Promise<SubmitPromptResponse> {
    const res = await this.send('/prompt', postJson(req));
    const text = res.text;
    const rejected = res.status === 400 ? toValidationBody(parseJson(text)) : null;
    if (rejected) throw new EngineValidationError(rejected);
    const body = res.ok ? (parseJson(text) as Partial<SubmitPromptResponse> | undefined) : undefined;
    if (!body || typeof body.prompt_id !== 'string') throw new EngineHttpError('/prompt', res.status, text);
    return { prompt_id: body.prompt_id, number: body.number ?? 0, node_errors: body.node_errors ?? {} };
  }

  /** `POST /upload/image` (any file type). Use the returned `name`: the engine may rename. */
  async uploadImage(data: Buffer | Uint8Array | Blob, filename: string, opts: UploadImageOptions = {}): Promise<UploadedImage> {
    // multipart/form-data written here, the file streamed (a Blob is a file on disk): one HTTP
    // stack for every call but the `/view` relay.
    const boundary = `----StudioUpload${crypto.randomBytes(12).toString('hex')}`;
    const quoted = filename.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
    const fields = { subfolder: opts.subfolder, type: opts.type, overwrite: opts.overwrite ? 'true' : undefined };
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="${quoted}"\r\nContent-Type: application/octet-stream\r\n\r\n`);
    const tail = Buffer.from(
      `\r\n${Object.entries(fields)
        .filter(([, value]) => value)
        .map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
        .join('')}--${boundary}--\r\n`,
    );
    const size = data instanceof Blob ? data.size : data.byteLength;
    const file = data instanceof Blob ? Readable.fromWeb(data.stream() as WebReadableStream<Uint8Array>) : [Buffer.from(data.buffer, data.byteOffset, data.byteLength)];
    const stream = Readable.from(
      (async function* () {
        yield head;
        for await (const chunk of file) yield chunk as Buffer;
        yield tail;
      })(),
    );
    const headers = { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(head.length + size + tail.length) };
    const body = (await this.json('/upload/image', { method: 'POST', headers, body: stream }, SLOW_TIMEOUT_MS)) as Partial<UploadedImage>;
    if (typeof body.name !== 'string') throw new EngineHttpError('/upload/image', 200, JSON.stringify(body));
    return { name: body.name, subfolder: body.subfolder ?? '', type: body.type ?? opts.type ?? 'input' };
  }

  /** `GET /history/{id}`; null while queued, running or unknown (the engine answers `{}` for all three). */
  async history(promptId: string): Promise<HistoryEntry | null> {
    const body = (await this.json(`/history/${encodeURIComponent(promptId)}`)) as Record<string, HistoryEntry> | null;
    const entry = body?.[promptId];
    if (!entry || typeof entry !== 'object') return null;
    return { ...entry, outputs: entry.outputs ?? {} };
  }

  /** `GET /queue` as prompt ids: running, and pending sorted by queue number. */
  async queue(): Promise<EngineQueue> {
    const body = (await this.json('/queue')) as Partial<EngineQueueRaw>;
    const raw: EngineQueueRaw = {
      queue_running: Array.isArray(body.queue_running) ? body.queue_running : [],
      queue_pending: Array.isArray(body.queue_pending) ? body.queue_pending : [],
    };
    const pending = [...raw.queue_pending].sort((a, b) => Number(a[0]) - Number(b[0]));
    return { running: raw.queue_running.map((item) => String(item[1])), pending: pending.map((item) => String(item[1])), raw };
  }

  /** `POST /interrupt`; with an id it only stops that prompt when it is the running one. */
  async interrupt(promptId?: string): Promise<void> {
    await this.expectOk('/interrupt', promptId ? postJson({ prompt_id: promptId }) : { method: 'POST' });
  }

  /** `POST /queue {delete}`: removes pending prompts only (a running one is untouched). */
  async deleteFromQueue(ids: string[]): Promise<void> {
    await this.expectOk('/queue', postJson({ delete: ids }));
  }

  /**
   * `GET /view` over `node:http`, for streaming big files through: a Node stream piped to the
   * client moves a 50 MB video several times faster than fetch's web stream converted with
   * `Readable.fromWeb`. Only the wait for headers is timed; null when the engine is unreachable.
   */
  viewStream(req: ViewRequest): Promise<ViewStream | null> {
    if (this.availability?.unavailableReason()) return Promise.resolve(null);
    const params = new URLSearchParams({ filename: req.filename, type: req.type ?? 'output', subfolder: req.subfolder ?? '' });
    const url = new URL(`${this.baseUrl}/view?${params.toString()}`);
    const get = url.protocol === 'https:' ? https.get : http.get;
    return new Promise((resolve) => {
      const request = get(url, { signal: req.signal, headers: { ...this.headers, ...req.headers } }, (res) => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: res });
      });
      const timer = setTimeout(() => request.destroy(new Error(`no response within ${this.timeoutMs} ms`)), this.timeoutMs);
      // Before the response this means unreachable; after it, the body stream reports the failure.
      request.on('error', () => {
        clearTimeout(timer);
        resolve(null);
      });
    });
  }

  private async json(path: string, init: SendInit = {}, timeoutMs = this.timeoutMs): Promise<unknown> {
    const res = await this.send(path, init, timeoutMs);
    if (!res.ok) throw new EngineHttpError(path, res.status, res.text);
    const body = parseJson(res.text);
    if (body === undefined) throw new EngineHttpError(path, res.status, res.text);
    return body;
  }

  private async expectOk(path: string, init: SendInit): Promise<void> {
    const res = await this.send(path, init);
    if (!res.ok) throw new EngineHttpError(path, res.status, res.text);
  }

  /**
   * One call with its whole answer, over node:http: Studio's start talks to the engine, and
   * fetch would load undici for it (`process/local-http.ts`).
   */
  private async send(path: string, init: SendInit, timeoutMs = this.timeoutMs): Promise<LocalResponse> {
    const reason = this.availability?.unavailableReason();
    if (reason) throw new EngineUnavailableError(path, reason);
    const lost = this.lost.signal;
    try {
      return await localRequest(`${this.baseUrl}${path}`, { ...init, headers: { ...this.headers, ...init.headers }, signal: lost, timeoutMs });
    } catch (err) {
      // Cut short because the engine was lost, or unreachable.
      if (lost.aborted && lost.reason instanceof EngineUnavailableError) throw new EngineUnavailableError(path, lost.reason.reason);
      throw new EngineUnreachableError(path, describeFailure(err, timeoutMs));
    }
  }
}

function postJson(value: unknown): SendInit {
  return { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) };
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function toValidationBody(body: unknown): EngineValidationBody | null {
  if (!body || typeof body !== 'object') return null;
  const b = body as { error?: unknown; node_errors?: unknown };
  if (!b.error || typeof b.error !== 'object') return null;
  // Builds that reject the whole prompt (missing_node_type, no_prompt) may send no node_errors.
  const nodeErrors = b.node_errors ?? {};
  if (!nodeErrors || typeof nodeErrors !== 'object') return null;
  for (const node of Object.values(nodeErrors as Record<string, { errors?: unknown }>)) {
    if (!node || !Array.isArray(node.errors)) return null;
  }
  return { error: b.error as EngineValidationBody['error'], node_errors: nodeErrors as EngineNodeErrors };
}

/** Why a call failed: the timeout, a wrapped cause's message, or the errno node:http gives. */
function describeFailure(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && err.name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  const cause = err instanceof Error ? (err as { cause?: unknown }).cause : undefined;
  if (cause instanceof Error) return cause.message || (cause as { code?: string }).code || (err as Error).message;
  return describeRequestError(err, timeoutMs);
}

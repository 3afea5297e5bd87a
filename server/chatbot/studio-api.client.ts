/**
 * Studio's own HTTP API as the bot uses it: only the endpoints the spec lists for the bot, over
 * local HTTP. The bot never reaches into services directly, so what it can do is what the API
 * allows. It authenticates with Studio's in-process credential rather than `X-API-Key`: the
 * public key check is throttled, and a stranger's wrong keys must not silence the owner's bot.
 * Every call is made for one chat: a chat bound to a person calls as that person (the credential
 * names them), so the API's own rules (role, scope, private records, allow-lists, quotas) apply.
 */
import { z } from 'zod';
import { localRequest, type LocalResponse, type LoopbackTrust } from '../process/local-http.js';

const presetEntry = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullish(),
  private: z.boolean().nullish(),
  workflow_id: z.string().nullish(),
  workflow_name: z.string().nullish(),
  detected_type: z.string().nullish(),
  /** False when the chat's person may not run it (issue 43). */
  runnable: z.boolean().nullish(),
});
export type PresetEntry = z.infer<typeof presetEntry>;

const presetDetail = z.object({
  id: z.string(),
  name: z.string().nullish(),
  workflow: z.object({ workflow_id: z.string(), workflow_name: z.string().nullish(), params: z.record(z.string(), z.unknown()).nullish() }),
  /** Not in the spec's preset fields; read when a presets service adds it. */
  needs_image: z.boolean().nullish(),
  detected_type: z.string().nullish(),
  source: z.object({ detected_type: z.string().nullish() }).nullish(),
});
export type PresetDetail = z.infer<typeof presetDetail>;

const placeholder = z.object({ index: z.number(), question: z.string(), options: z.array(z.string()) });
export type Placeholder = z.infer<typeof placeholder>;

const runAnswer = z.object({ prompt_id: z.string() });

const outputFile = z.object({ filename: z.string(), subfolder: z.string().default(''), type: z.string().default('output') });
export type OutputFile = z.infer<typeof outputFile>;

const runStatus = z.union([
  z.object({ status: z.literal('completed'), outputs: z.record(z.string(), outputFile) }),
  z.object({ status: z.literal('error'), error: z.string().nullish() }),
  z.object({ status: z.literal('pending'), queue_position: z.number().nullish() }),
  z.object({
    status: z.literal('running'),
    percent: z.number().nullish(),
    step: z.number().nullish(),
    total_steps: z.number().nullish(),
    node_title: z.string().nullish(),
    eta_seconds: z.number().nullish(),
  }),
]);
export type RunStatus = z.infer<typeof runStatus>;

/** Studio answered with an error status; `detail` is its `{"detail"}`. */
export class StudioApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    /** A 429's `Retry-After` in seconds. */
    readonly retryAfterS: number | null = null,
  ) {
    super(`Studio answered ${status}: ${detail}`);
  }
}

export interface StudioApiOptions {
  /** Studio's own certificate when it serves HTTPS. */
  trust: LoopbackTrust | undefined;
  /** Studio's local address, known once it listens. */
  baseUrl: () => string;
  /** The headers that authenticate the bot's calls for one chat (Studio's in-process credential, naming the chat's person). */
  credential: (chatId: number) => Record<string, string>;
  signal: AbortSignal;
}

interface RequestOptions {
  /** The chat the call is made for: its person is who Studio sees. */
  chatId: number;
  method?: string;
  body?: Buffer;
  type?: string;
  maxBytes?: number;
  timeoutMs?: number;
  /** Sent as `X-Studio-Submitter` (the queue's fair share). */
  submitter?: string;
}

/** The input image of a run. */
export interface RunImage {
  bytes: Uint8Array;
  filename: string;
}

/** The bot's HTTP client for Studio. */
export class StudioApiClient {
  constructor(private readonly options: StudioApiOptions) {}

  /** `GET /api/admin/presets`. */
  async presets(chatId: number): Promise<PresetEntry[]> {
    return z.array(presetEntry).parse(await this.json('/api/admin/presets', { chatId }));
  }

  /** `GET /api/admin/presets/{id}`. */
  async preset(chatId: number, id: string): Promise<PresetDetail> {
    return presetDetail.parse(await this.json(`/api/admin/presets/${encodeURIComponent(id)}`, { chatId }));
  }

  /** `GET /api/admin/presets/{id}/placeholders`. */
  async placeholders(chatId: number, id: string): Promise<Placeholder[]> {
    return z.array(placeholder).parse(await this.json(`/api/admin/presets/${encodeURIComponent(id)}/placeholders`, { chatId }));
  }

  /** `POST /api/admin/presets/{id}/run` with the answers (index → option) and an optional image. */
  async run(chatId: number, id: string, answers: Record<string, string>, image?: RunImage): Promise<string> {
    const form = new FormData();
    form.set('seed', '-1');
    form.set('answers', JSON.stringify(answers));
    if (image) form.set('input_image', new Blob([image.bytes]), image.filename);
    // Response encodes the form as multipart bytes with its boundary in the content type.
    const encoded = new Response(form);
    const body = Buffer.from(await encoded.arrayBuffer());
    const type = encoded.headers.get('content-type') ?? 'multipart/form-data';
    // The image goes on to the engine before the answer: allow for a slow engine.
    // Each chat is its own submitter for the queue's fair share (a bound chat's person is one submitter, whatever it sends).
    const answer = await this.json(`/api/admin/presets/${encodeURIComponent(id)}/run`, { chatId, method: 'POST', body, type, timeoutMs: 120_000, submitter: `chat:${chatId}` });
    return runAnswer.parse(answer).prompt_id;
  }

  /** `GET /api/run/status/{prompt_id}`. */
  async status(chatId: number, promptId: string): Promise<RunStatus> {
    return runStatus.parse(await this.json(`/api/run/status/${encodeURIComponent(promptId)}`, { chatId }));
  }

  /** `GET /api/engine/view`: the bytes (null above `maxBytes`), size and type of an output file. */
  async view(chatId: number, file: OutputFile, maxBytes: number): Promise<{ bytes: Uint8Array | null; size: number; contentType: string }> {
    const query = new URLSearchParams({ filename: file.filename, type: file.type, subfolder: file.subfolder });
    const res = await this.request(`/api/engine/view?${query.toString()}`, { chatId, maxBytes, timeoutMs: 120_000 });
    return { bytes: res.body, size: res.size, contentType: String(res.headers['content-type'] ?? 'application/octet-stream') };
  }

  private async json(pathname: string, init: RequestOptions): Promise<unknown> {
    const res = await this.request(pathname, init);
    return JSON.parse((res.body ?? Buffer.alloc(0)).toString('utf8')) as unknown;
  }

  private async request(pathname: string, init: RequestOptions): Promise<LocalResponse> {
    const res = await localRequest(this.options.baseUrl() + pathname, {
      method: init.method,
      body: init.body,
      maxBytes: init.maxBytes,
      // A hung Studio must not hang a chat forever.
      timeoutMs: init.timeoutMs ?? 30_000,
      trust: this.options.trust,
      signal: this.options.signal,
      headers: {
        ...this.options.credential(init.chatId),
        Accept: 'application/json',
        ...(init.type ? { 'Content-Type': init.type } : {}),
        ...(init.submitter ? { 'X-Studio-Submitter': init.submitter } : {}),
      },
    });
    if (res.status >= 200 && res.status < 300) return res;
    const text = res.text;
    let detail = text || `HTTP ${res.status}`;
    try {
      const parsed = JSON.parse(text) as { detail?: unknown };
      if (typeof parsed.detail === 'string') detail = parsed.detail;
    } catch {
      // Not JSON: the raw text is the best detail there is.
    }
    const retryAfter = Number(res.headers['retry-after']);
    throw new StudioApiError(res.status, detail, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null);
  }
}

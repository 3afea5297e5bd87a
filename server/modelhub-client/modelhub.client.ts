/**
 * The model hub's REST API (`<base>/api/v1`): version and model records, images (single lookup
 * and cursor pages) and tag names through its tRPC batch query route. The base URL comes from
 * config (tests point it at a local fake); the API key is read per call because it can be
 * changed at runtime, and it travels in an `Authorization: Bearer` header, never in the query
 * string where it would end up in logs.
 *
 * The hub publishes no rate limits and answers bursts with 429, mostly without `Retry-After`
 * (as the hub's public REST API documents it). A 429 or a 502/503/504 is retried a bounded number of times: after the
 * `Retry-After` the hub asked for (capped), else after an exponential backoff.
 */
import { z } from 'zod';
import { OutboundUnreachable, getWithToken, parseJsonAs } from '../http/outbound-json.js';
import { backoffDelay, parseRetryAfter } from '../process/backoff.js';
import { sleep } from '../process/sleep.js';
import {
  imagePageSchema,
  modelSchema,
  tagRecordSchema,
  trpcBatchSchema,
  versionSchema,
  type ModelhubImage,
  type ModelhubModel,
  type ModelhubVersion,
} from './modelhub.schema.js';

export type { ModelhubFile, ModelhubImage, ModelhubModel, ModelhubVersion } from './modelhub.schema.js';

export interface ModelhubClientOptions {
  /** `https://civitai.com` or a fake; the API lives under `/api/v1`. */
  baseUrl: string;
  apiKey: () => string | null;
  fetchImpl?: typeof fetch;
  timeoutMs?: number;
  /** Retries of a 429/502/503/504 before giving up. Default 3. */
  retries?: number;
}

/** Longest wait before one retry, whatever `Retry-After` says. */
const MAX_RETRY_WAIT_MS = 30_000;
/** First backoff when the hub gave no `Retry-After` (doubles each time). */
const BACKOFF_MS = 1000;

/** Why a model hub call failed (the routes map it to a status). */
export type ModelhubErrorKind = 'unreachable' | 'rate_limited' | 'not_found' | 'auth' | 'http' | 'bad_answer';

/** A failed model hub call, with a message for the user. */
export class ModelhubError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly kind: ModelhubErrorKind = kindOf(status),
  ) {
    super(message);
    this.name = 'ModelhubError';
  }
}

/** One page of `/images`, and the opaque cursor of the next one (null at the end). */
export interface ImagePage {
  items: ModelhubImage[];
  nextCursor: string | null;
}

/** Query of `/images` by model (gallery pages). */
export interface ImageQuery {
  modelId: string;
  cursor?: string | null;
  limit?: number;
}

const TAG_BATCH = 20;

export class ModelhubClient {
  private readonly fetchImpl: typeof fetch;
  private readonly timeoutMs: number;

  constructor(private readonly options: ModelhubClientOptions) {
    // Not `fetch` itself: reading the global loads undici, which the start does not need (process/local-http.ts).
    this.fetchImpl = options.fetchImpl ?? ((input, init) => fetch(input, init));
    this.timeoutMs = options.timeoutMs ?? 20_000;
  }

  /** One model version by id. */
  async getModelVersion(versionId: string, signal?: AbortSignal): Promise<ModelhubVersion> {
    return this.getJson(`/api/v1/model-versions/${encodeURIComponent(versionId)}`, versionSchema, `model version ${versionId}`, signal);
  }

  /** One model (tags, type, versions with their images) by id. */
  async getModel(modelId: string, signal?: AbortSignal): Promise<ModelhubModel> {
    return this.getJson(`/api/v1/models/${encodeURIComponent(modelId)}`, modelSchema, `model ${modelId}`, signal);
  }

  /** One image with its generation data (`/images?imageId=…&withMeta=true`); 404 when unknown. */
  async getImage(imageId: number, signal?: AbortSignal): Promise<ModelhubImage> {
    const page = await this.getJson(`/api/v1/images?imageId=${imageId}&withMeta=true`, imagePageSchema, `image ${imageId}`, signal);
    const item = page.items.find((image) => image.id === imageId) ?? page.items[0];
    if (!item) throw new ModelhubError(`The model hub has no image ${imageId}`, 404);
    return item;
  }

  /** One page of a model's images, newest first, with their generation data. */
  async listImages(query: ImageQuery, signal?: AbortSignal): Promise<ImagePage> {
    const params = new URLSearchParams({ modelId: query.modelId, limit: String(query.limit ?? 100), sort: 'Newest', withMeta: 'true' });
    if (query.cursor) params.set('cursor', query.cursor);
    const page = await this.getJson(`/api/v1/images?${params.toString()}`, imagePageSchema, `images of model ${query.modelId}`, signal);
    const next = page.metadata?.nextCursor;
    return { items: page.items, nextCursor: next === null || next === undefined || next === '' ? null : String(next) };
  }

  /**
   * Names of tag ids, through the hub's tRPC batch query (`tag.getById` for each id, 20 per
   * call). Ids the hub does not know are left out of the answer.
   */
  async tagNames(ids: readonly number[], signal?: AbortSignal): Promise<Map<number, string>> {
    const names = new Map<number, string>();
    for (let i = 0; i < ids.length; i += TAG_BATCH) {
      const chunk = ids.slice(i, i + TAG_BATCH);
      const input: Record<string, { json: { id: number } }> = {};
      chunk.forEach((id, n) => (input[String(n)] = { json: { id } }));
      const procedures = chunk.map(() => 'tag.getById').join(',');
      const apiPath = `/api/trpc/${procedures}?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`;
      const answers = await this.getJson(apiPath, trpcBatchSchema, 'tag names', signal);
      for (const answer of answers) {
        const tag = tagRecordSchema.safeParse(answer.result?.data.json);
        if (tag.success) names.set(tag.data.id, tag.data.name);
      }
    }
    return names;
  }

  private async getJson<S extends z.ZodType>(apiPath: string, schema: S, what: string, signal?: AbortSignal): Promise<z.infer<S>> {
    const url = `${this.options.baseUrl.replace(/\/+$/, '')}${apiPath}`;
    const retries = this.options.retries ?? 3;
    for (let attempt = 0; ; attempt += 1) {
      const token = this.options.apiKey();
      let answer: { res: Response; text: string };
      try {
        answer = await getWithToken(url, { token, timeoutMs: this.timeoutMs, signal, fetchImpl: this.fetchImpl });
      } catch (err) {
        if (signal?.aborted) throw err;
        const message = err instanceof OutboundUnreachable ? err.message : String(err);
        throw new ModelhubError(`Cannot reach the model hub at ${this.options.baseUrl}: ${message}`, null, 'unreachable');
      }
      const { res, text } = answer;
      if (RETRIED.has(res.status) && attempt < retries) {
        await sleep(this.retryDelay(res.headers.get('retry-after'), attempt), signal);
        signal?.throwIfAborted();
        continue;
      }
      if (!res.ok) throw new ModelhubError(statusMessage(res.status, what, text, token !== null), res.status);
      const parsed = parseJsonAs(text, schema);
      if (parsed.ok) return parsed.data;
      throw new ModelhubError(
        parsed.reason === 'not_json' ? `The model hub sent something that is not JSON for ${what}` : `The model hub's answer for ${what} has an unexpected shape`,
        res.status,
        'bad_answer',
      );
    }
  }

  /** Milliseconds before retry `attempt`: the hub's `Retry-After` (seconds or a date), capped. */
  private retryDelay(header: string | null, attempt: number): number {
    const asked = parseRetryAfter(header);
    if (asked !== null) return Math.min(MAX_RETRY_WAIT_MS, asked);
    return backoffDelay(attempt + 1, { baseMs: BACKOFF_MS, maxMs: MAX_RETRY_WAIT_MS });
  }
}

const RETRIED = new Set([429, 502, 503, 504]);


function kindOf(status: number | null): ModelhubErrorKind {
  if (status === null) return 'unreachable';
  if (status === 404) return 'not_found';
  if (status === 429) return 'rate_limited';
  if (status === 401 || status === 403) return 'auth';
  return 'http';
}

function statusMessage(status: number, what: string, body: string, tokenSent: boolean): string {
  let detail = '';
  try {
    const json = JSON.parse(body) as { error?: unknown; message?: unknown };
    detail = [json.error, json.message].filter((part): part is string => typeof part === 'string').join(': ');
  } catch {}
  const suffix = detail ? ` (${detail.slice(0, 200)})` : '';
  if (status === 404) return `The model hub has no ${what}${suffix}`;
  if (status === 401) {
    return tokenSent
      ? `The model hub rejected MODELHUB_API_KEY (401)${suffix}: check it in Settings`
      : `The model hub requires an API key for ${what} (401): set MODELHUB_API_KEY in Settings`;
  }
  if (status === 403) return `The model hub refused access to ${what} (403)${suffix}`;
  if (status === 429) return `The model hub is rate limiting requests (429) and kept refusing after retries; try again in a minute`;
  return `The model hub answered ${status} for ${what}${suffix}`;
}

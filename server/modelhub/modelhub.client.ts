/**
 * The model hub's REST API (`<base>/api/v1`): version and model records for catalog metadata.
 * The base URL comes from config (tests point it at a local fake); the API key is read per call
 * because it can be changed at runtime, and it travels in an `Authorization: Bearer` header,
 * never in the query string where it would end up in logs.
 */
import { z } from 'zod';
import { getWithToken, parseJsonAs } from '../http/outbound-json.js';

export interface ModelhubClientOptions {
  /** `https://civitai.com` or a fake; the API lives under `/api/v1`. */
  baseUrl: string;
  apiKey: () => string | null;
  fetchImpl?: typeof fetch;
  timeoutMs?: number;
}

/** A failed model hub call, with a message for the user. */
export class ModelhubError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
    this.name = 'ModelhubError';
  }
}

const idSchema = z.union([z.number(), z.string()]).transform(String);

const fileSchema = z.looseObject({
  id: idSchema.optional(),
  name: z.string(),
  sizeKB: z.number().optional(),
  primary: z.boolean().optional(),
  metadata: z.looseObject({ fp: z.string().nullish(), format: z.string().nullish(), size: z.string().nullish() }).nullish(),
  hashes: z.record(z.string(), z.string()).optional(),
});

const versionSchema = z.looseObject({
  id: idSchema,
  modelId: idSchema.optional(),
  name: z.string(),
  baseModel: z.string().nullish(),
  trainedWords: z.array(z.string()).nullish(),
  createdAt: z.string().nullish(),
  updatedAt: z.string().nullish(),
  publishedAt: z.string().nullish(),
  availability: z.string().nullish(),
  usageControl: z.string().nullish(),
  model: z.looseObject({ name: z.string(), type: z.string().nullish() }).nullish(),
  files: z.array(fileSchema).nullish(),
});

const modelSchema = z.looseObject({
  id: idSchema,
  name: z.string(),
  type: z.string().nullish(),
  tags: z.array(z.string()).nullish(),
});

/** A model version record (`GET /api/v1/model-versions/{id}`), the fields Studio uses. */
export type ModelhubVersion = z.infer<typeof versionSchema>;
/** A model record (`GET /api/v1/models/{id}`), the fields Studio uses. */
export type ModelhubModel = z.infer<typeof modelSchema>;
export type ModelhubFile = z.infer<typeof fileSchema>;

/** HTTP client for the model hub's public REST API. */
export class ModelhubClient {
  private readonly fetchImpl: typeof fetch;
  private readonly timeoutMs: number;

  constructor(private readonly options: ModelhubClientOptions) {
    this.fetchImpl = options.fetchImpl ?? fetch;
    this.timeoutMs = options.timeoutMs ?? 20_000;
  }

  /** One model version by id. */
  async getModelVersion(versionId: string, signal?: AbortSignal): Promise<ModelhubVersion> {
    return this.getJson(`/model-versions/${encodeURIComponent(versionId)}`, versionSchema, `model version ${versionId}`, signal);
  }

  /** One model (tags, type) by id. */
  async getModel(modelId: string, signal?: AbortSignal): Promise<ModelhubModel> {
    return this.getJson(`/models/${encodeURIComponent(modelId)}`, modelSchema, `model ${modelId}`, signal);
  }

  private async getJson<S extends z.ZodType>(apiPath: string, schema: S, what: string, signal?: AbortSignal): Promise<z.infer<S>> {
    const url = `${this.options.baseUrl.replace(/\/+$/, '')}/api/v1${apiPath}`;
    const token = this.options.apiKey();
    let answer: { res: Response; text: string };
    try {
      answer = await getWithToken(url, { token, timeoutMs: this.timeoutMs, signal, fetchImpl: this.fetchImpl });
    } catch (err) {
      throw new ModelhubError(`Cannot reach the model hub: ${(err as Error).message}`, null);
    }
    const { res, text } = answer;
    if (!res.ok) throw new ModelhubError(statusMessage(res.status, what, text, token !== null), res.status);
    const parsed = parseJsonAs(text, schema);
    if (parsed.ok) return parsed.data;
    throw new ModelhubError(
      parsed.reason === 'not_json' ? `The model hub sent something that is not JSON for ${what}` : `The model hub's answer for ${what} has an unexpected shape`,
      res.status,
    );
  }
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
  if (status === 429) return `The model hub is rate limiting requests (429); try again in a minute`;
  return `The model hub answered ${status} for ${what}${suffix}`;
}

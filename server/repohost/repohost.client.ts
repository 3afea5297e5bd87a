/**
 * The repository host's API (`<base>/api/models/{repo}`): repository metadata for catalog
 * entries (tags, base model, timestamps, gating). The token (`HUB_TOKEN`) is read per call,
 * since it is editable at runtime, and sent as a Bearer header. The host's authoritative error
 * reason is in the `X-Error-Code` / `X-Error-Message` headers, so those feed the messages.
 */
import { z } from 'zod';
import { getWithToken, parseJsonAs } from '../http/outbound-json.js';

export interface RepohostClientOptions {
  /** `https://huggingface.co` or a fake. */
  baseUrl: string;
  token: () => string | null;
  fetchImpl?: typeof fetch;
  timeoutMs?: number;
}

/** A failed repository host call, with a message for the user. */
class RepohostError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly code: string | null = null,
  ) {
    super(message);
    this.name = 'RepohostError';
  }
}

const stringOrList = z.union([z.string(), z.array(z.string())]);

const repoSchema = z.looseObject({
  id: z.string(),
  sha: z.string().nullish(),
  lastModified: z.string().nullish(),
  createdAt: z.string().nullish(),
  private: z.boolean().nullish(),
  gated: z.union([z.boolean(), z.string()]).nullish(),
  pipeline_tag: z.string().nullish(),
  tags: z.array(z.string()).nullish(),
  cardData: z
    .looseObject({
      base_model: stringOrList.nullish(),
      license: stringOrList.nullish(),
      tags: stringOrList.nullish(),
    })
    .nullish(),
});

/** A repository record, the fields Studio uses. */
export type RepohostRepo = z.infer<typeof repoSchema>;

export class RepohostClient {
  private readonly fetchImpl: typeof fetch;
  private readonly timeoutMs: number;

  constructor(private readonly options: RepohostClientOptions) {
    // Not `fetch` itself: reading the global loads undici, which the start does not need (process/local-http.ts).
    this.fetchImpl = options.fetchImpl ?? ((input, init) => fetch(input, init));
    this.timeoutMs = options.timeoutMs ?? 20_000;
  }

  /** Metadata of a model repository (`owner/name`). */
  async getModelInfo(repo: string, signal?: AbortSignal): Promise<RepohostRepo> {
    const encoded = repo.split('/').map(encodeURIComponent).join('/');
    const url = `${this.options.baseUrl.replace(/\/+$/, '')}/api/models/${encoded}`;
    const token = this.options.token();
    let answer: { res: Response; text: string };
    try {
      answer = await getWithToken(url, { token, timeoutMs: this.timeoutMs, signal, fetchImpl: this.fetchImpl });
    } catch (err) {
      throw new RepohostError(`Cannot reach the repository host: ${(err as Error).message}`, null);
    }
    const { res, text } = answer;
    if (!res.ok) {
      const code = res.headers.get('x-error-code');
      throw new RepohostError(statusMessage(res.status, repo, code, res.headers.get('x-error-message'), token !== null), res.status, code);
    }
    const parsed = parseJsonAs(text, repoSchema);
    if (!parsed.ok) {
      throw new RepohostError(
        parsed.reason === 'not_json' ? `The repository host sent something that is not JSON for ${repo}` : `The repository host's answer for ${repo} has an unexpected shape`,
        res.status,
      );
    }
    return parsed.data;
  }
}

function statusMessage(status: number, repo: string, code: string | null, message: string | null, tokenSent: boolean): string {
  const suffix = message ? ` (${message.slice(0, 200)})` : '';
  if (code === 'GatedRepo' || (status === 403 && tokenSent)) {
    return `${repo} is gated (${status})${suffix}: accept its license on the repository host${tokenSent ? '' : ' and set HUB_TOKEN in Settings'}`;
  }
  // 401 also means "private or missing": the host will not say which without a token.
  if (status === 401) {
    return tokenSent
      ? `The repository host refused ${repo} (401)${suffix}: check HUB_TOKEN, or the repository may be private or missing`
      : `The repository host refused ${repo} (401)${suffix}: it is private, gated or missing; set HUB_TOKEN in Settings if you have access`;
  }
  if (status === 404) return `The repository host has no repository ${repo}${suffix}`;
  if (status === 429) return 'The repository host is rate limiting requests (429); try again in a minute';
  return `The repository host answered ${status} for ${repo}${suffix}`;
}

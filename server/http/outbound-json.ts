/**
 * GET of a JSON document from an outside service (model hub, repo host): optional bearer token,
 * a timeout combined with the caller's abort signal, and the body as text. The clients keep
 * their own wording for statuses and shapes; this is only the transport they share.
 */
import type { z } from 'zod';

export interface OutboundGet {
  token: string | null;
  timeoutMs: number;
  signal?: AbortSignal;
  fetchImpl: typeof fetch;
}

/** The service could not be reached at all (DNS, refused, timeout, abort). */
export class OutboundUnreachable extends Error {}

/** Fetch `url`; throws OutboundUnreachable when no answer came. */
export async function getWithToken(url: string, opts: OutboundGet): Promise<{ res: Response; text: string }> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  let res: Response;
  try {
    res = await opts.fetchImpl(url, { headers, signal: opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout });
  } catch (err) {
    throw new OutboundUnreachable((err as Error).message);
  }
  return { res, text: await res.text().catch(() => '') };
}

/** Parse `text` as JSON matching `schema`: the data, or which of the two checks failed. */
export function parseJsonAs<S extends z.ZodType>(text: string, schema: S): { ok: true; data: z.infer<S> } | { ok: false; reason: 'not_json' | 'shape' } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'not_json' };
  }
  const parsed = schema.safeParse(raw);
  return parsed.success ? { ok: true, data: parsed.data } : { ok: false, reason: 'shape' };
}

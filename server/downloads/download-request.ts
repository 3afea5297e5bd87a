/**
 * One attempt's request and the verdict on its answer, whichever way it was read: a plain-`http:`
 * 200/206 over the bare-socket reader (`download-raw.ts`, the fast path), everything else through
 * `node:http` with redirects followed (`download-http.ts`). The caller gets one shape either way:
 * the headers, a `pump` for the body and a `release` for an answer it will not read.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { judgeAnswer, judgeSuccess, type AnswerVerdict } from './download-answer.js';
import { discardBody, pumpBody } from './download-body.js';
import type { ResponseContext } from './download-errors.js';
import { getFollowingRedirects, getOnce, USER_AGENT, type GetOnce } from './download-http.js';
import type { PartWriter } from './download-part-writer.js';
import { rawGet, type RawAnswer } from './download-raw.js';

export interface OpenedAnswer {
  verdict: AnswerVerdict;
  headers: IncomingHttpHeaders;
  /** Write the body into `out`; resolves at its end, rejects on a failure or an early close. */
  pump(out: PartWriter, onChunk: (bytes: number) => void): Promise<void>;
  /** Drop a body that was not read to the end (idempotent; nothing after a complete pump). */
  release(): void;
}

export interface AnswerRequest {
  url: string;
  /** Auth headers: to the origin only. */
  originHeaders: Record<string, string>;
  /** Range, If-Range, Accept-Encoding. */
  commonHeaders: Record<string, string>;
  signal: AbortSignal;
  /** Bytes already in the part (the verdict depends on it). */
  offset: number;
  context: Pick<ResponseContext, 'source' | 'tokenName'>;
}

/** Send the attempt's GET and judge the answer; throws the DownloadError for a refusal (its body released). */
export async function openAnswer(req: AnswerRequest): Promise<OpenedAnswer> {
  const found: { fast: RawAnswer | null } = { fast: null };
  // Each hop over the bare socket where it can; see `download-raw.ts`.
  const get: GetOnce = async (url, headers, signal) => {
    const raw = await rawGet(url, { 'User-Agent': USER_AGENT, ...headers }, signal);
    if (raw === null) return getOnce(url, headers, signal);
    if ('message' in raw) return raw.message;
    found.fast = raw.fast;
    // A 200/206 ends the redirects: they read its status and headers only.
    return { statusCode: raw.fast.status, statusMessage: raw.fast.statusMessage, headers: raw.fast.headers } as IncomingMessage;
  };
  const hop = await getFollowingRedirects(req.url, { originHeaders: req.originHeaders, commonHeaders: req.commonHeaders, signal: req.signal }, get);
  const ctx = { ...req.context, tokenSent: hop.tokenSent, atOrigin: hop.atOrigin };
  const body = found.fast;
  if (body) {
    try {
      return { verdict: judgeSuccess(body.status, body.headers, req.offset, ctx), headers: body.headers, pump: body.pump, release: body.release };
    } catch (err) {
      body.release();
      throw err;
    }
  }
  const res = hop.response;
  // Frees the socket of an answer not read to the end (error bodies, 416, a restart).
  const release = () => {
    if (!res.readableEnded) discardBody(res);
  };
  try {
    const verdict = await judgeAnswer(res, req.offset, ctx);
    return { verdict, headers: res.headers, pump: (out, onChunk) => pumpBody(res, out, onChunk), release };
  } catch (err) {
    release();
    throw err;
  }
}

/**
 * One attempt's request and the verdict on its answer, through `node:http` / `node:https` with
 * redirects followed (`download-http.ts`): the headers, a `pump` for the body and a `release` for
 * an answer it will not read.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { judgeAnswer, type AnswerVerdict } from './download-answer.js';
import { discardBody, pumpBody } from './download-body.js';
import type { ResponseContext } from './download-errors.js';
import { getFollowingRedirects } from './download-http.js';
import type { PartWriter } from './download-part-writer.js';

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
  const hop = await getFollowingRedirects(req.url, { originHeaders: req.originHeaders, commonHeaders: req.commonHeaders, signal: req.signal });
  const ctx = { ...req.context, tokenSent: hop.tokenSent, atOrigin: hop.atOrigin };
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

/**
 * One attempt's request and what its answer means for the part file. The GET goes through
 * `node:http` / `node:https` with redirects followed (`download-http.ts`); the verdict is decided
 * from the status and headers alone: append a continuation, start over with a full body, the part
 * is already complete, or ask again from byte 0. Failures become user-facing `DownloadError`s.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { discardBody, headerOf, pumpBody } from './download-body.js';
import { DownloadError, errorForStatus, htmlPageError, type ResponseContext } from './download-errors.js';
import { getFollowingRedirects } from './download-http.js';
import type { PartWriter } from './download-part-writer.js';
import { parseContentRange } from './download-resume.js';

export type AnswerVerdict =
  /** 206 continuing exactly at our offset: append the body. */
  | { kind: 'append'; total: number | null }
  /** 200: the server ignored Range, or If-Range failed because the file changed; the body is the whole file. */
  | { kind: 'full'; total: number | null }
  /** 416 naming our own size as the total: the part already is the whole file. */
  | { kind: 'complete' }
  /** A range answer that does not fit the part: drop the part and ask again from byte 0. */
  | { kind: 'restart' };

/**
 * The verdict on `res` for a request sent with `offset` bytes already in the part (0 = no Range).
 * Throws the DownloadError for a refusal, an error status or a web page served instead of a file;
 * the caller still owns the body either way.
 */
async function judgeAnswer(res: IncomingMessage, offset: number, ctx: ResponseContext): Promise<AnswerVerdict> {
  const status = res.statusCode ?? 0;
  if (status === 416 && offset > 0) {
    return parseContentRange(headerOf(res.headers, 'content-range'))?.total === offset ? { kind: 'complete' } : { kind: 'restart' };
  }
  if (status < 200 || status >= 300) throw await errorForStatus(res, ctx);
  const headers = res.headers;
  if ((headerOf(headers, 'content-type') ?? '').toLowerCase().includes('text/html')) throw htmlPageError(ctx);
  // We ask for identity and write the bytes as they come; a compressed body would be a corrupt file.
  const encoding = (headerOf(headers, 'content-encoding') ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity' && encoding !== '') {
    throw new DownloadError('http', `The server sent the file compressed (Content-Encoding: ${encoding}) although asked not to`, {
      status,
    });
  }
  if (status === 206) {
    const range = parseContentRange(headerOf(headers, 'content-range'));
    return range && range.start === offset ? { kind: 'append', total: range.total } : { kind: 'restart' };
  }
  const length = headerOf(headers, 'content-length');
  return { kind: 'full', total: length !== null && /^\d+$/.test(length) ? Number(length) : null };
}

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

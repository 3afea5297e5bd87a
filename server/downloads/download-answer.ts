/**
 * What the answer to a (possibly ranged) download request means for the part file, decided from
 * the status and headers alone: append a continuation, start over with a full body, the part is
 * already complete, or ask again from byte 0. Failures become user-facing `DownloadError`s.
 */
import type { IncomingMessage } from 'node:http';
import { headerOf } from './download-body.js';
import { DownloadError, errorForStatus, htmlPageError, type ResponseContext } from './download-errors.js';
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
export async function judgeAnswer(res: IncomingMessage, offset: number, ctx: ResponseContext): Promise<AnswerVerdict> {
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

/**
 * Typed download errors and the mapping from an HTTP answer to one. Messages are written for the
 * user: they say which token is missing or that a license must be accepted, because a bare
 * "401" in the download list tells nobody what to do.
 */
import type { IncomingMessage } from 'node:http';
import { discardBody, headerOf, readSomeText } from './download-body.js';
import { parseRetryAfter } from '../process/backoff.js';

/** What went wrong, for the queue (retry policy) and the UI (which hint to show). */
export type DownloadErrorKind =
  | 'auth'
  | 'license'
  | 'not_found'
  | 'hash_mismatch'
  | 'stalled'
  | 'network'
  | 'disk_full'
  | 'aborted'
  | 'http';

export interface DownloadErrorOptions {
  status?: number;
  /** Transient: worth another attempt (network errors, stalls, 408/429/5xx, expired CDN links). */
  retryable?: boolean;
  /** Server-requested wait before the next attempt (Retry-After). */
  retryAfterMs?: number;
  cause?: unknown;
}

/** A download failure with a kind and a message that says what to do. */
export class DownloadError extends Error {
  readonly status: number | undefined;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;

  constructor(
    readonly kind: DownloadErrorKind,
    message: string,
    options: DownloadErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DownloadError';
    this.status = options.status;
    this.retryable = options.retryable ?? false;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** Who answered and what we sent, to pick the right advice. */
export interface ResponseContext {
  source?: 'modelhub' | 'repohost';
  /** Name of the setting holding the token for this source. */
  tokenName?: string;
  /** Whether an Authorization header went to the origin. */
  tokenSent: boolean;
  /** Whether the answer came from the origin host (not a CDN we were redirected to). */
  atOrigin: boolean;
}

const RETRYABLE_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);

/** The error for a non-2xx answer; reads at most a little of the body for detail. */
export async function errorForStatus(res: IncomingMessage, ctx: ResponseContext): Promise<DownloadError> {
  const status = res.statusCode ?? 0;
  const statusText = res.statusMessage ?? '';
  const detail = await errorDetail(res);
  const suffix = detail ? ` (${detail})` : '';
  const tokenName = ctx.tokenName ?? (ctx.source === 'modelhub' ? 'MODELHUB_API_KEY' : 'HUB_TOKEN');

  // A signed CDN link that expired or was refused: going back to the origin gets a fresh one.
  if (!ctx.atOrigin && (status === 401 || status === 403 || status === 410)) {
    return new DownloadError('http', `The download link expired or was refused by the file host (${status})${suffix}`, {
      status,
      retryable: true,
    });
  }
  if (status === 401 || status === 403) return authError(status, ctx, tokenName, suffix);
  if (status === 404 || status === 410) {
    return new DownloadError(
      'not_found',
      `The file was not found at its source (${status})${suffix}: the catalog entry may be out of date`,
      { status },
    );
  }
  if (RETRYABLE_STATUS.has(status)) {
    return new DownloadError('http', `The server answered ${status} ${statusText}${suffix}`.trim(), {
      status,
      retryable: true,
      retryAfterMs: parseRetryAfter(headerOf(res.headers, 'retry-after')) ?? undefined,
    });
  }
  return new DownloadError('http', `The server answered ${status} ${statusText}${suffix}`.trim(), { status });
}

function authError(status: number, ctx: ResponseContext, tokenName: string, suffix: string): DownloadError {
  if (ctx.source === 'modelhub') {
    if (status === 401) {
      return ctx.tokenSent
        ? new DownloadError('auth', `The model hub rejected the API key (401)${suffix}: check ${tokenName} in Settings`, { status })
        : new DownloadError('auth', `The model hub requires an API key: set ${tokenName} in Settings`, { status });
    }
    return new DownloadError(
      'license',
      `The model hub refused the download (403)${suffix}: the model may be in early access or restricted; check that your account can download it on its page`,
      { status },
    );
  }
  if (ctx.source === 'repohost') {
    if (status === 401) {
      return ctx.tokenSent
        ? new DownloadError(
            'auth',
            `The repository host rejected ${tokenName} or the repository is private (401)${suffix}: check ${tokenName} in Settings and accept the model's license on its page`,
            { status },
          )
        : new DownloadError(
            'auth',
            `The repository host requires a token for this file (401)${suffix}: set ${tokenName} in Settings, and accept the model's license on its page if it is gated`,
            { status },
          );
    }
    return new DownloadError(
      'license',
      `Access to this gated model has not been granted (403)${suffix}: accept the model's license on its page on the repository host${ctx.tokenSent ? '' : ` and set ${tokenName} in Settings`}, then retry`,
      { status },
    );
  }
  return new DownloadError(
    status === 401 ? 'auth' : 'license',
    `The server refused the download (${status})${suffix}: check the token in Settings or accept the license at the source`,
    { status },
  );
}

/** The error for a web page served where a file was expected (a login or license wall). */
export function htmlPageError(ctx: ResponseContext): DownloadError {
  const tokenName = ctx.tokenName ?? (ctx.source === 'modelhub' ? 'MODELHUB_API_KEY' : 'HUB_TOKEN');
  if (ctx.source === 'modelhub') {
    return ctx.tokenSent
      ? new DownloadError(
          'auth',
          `The model hub sent a web page (a login or early-access page) instead of the file: ${tokenName} may not have access to this model`,
        )
      : new DownloadError('auth', `The model hub sent a login page instead of the file: set ${tokenName} in Settings`);
  }
  if (ctx.source === 'repohost') {
    return new DownloadError(
      'license',
      `The repository host sent a web page instead of the file: accept the model's license on its page${ctx.tokenSent ? '' : ` and set ${tokenName} in Settings`}`,
    );
  }
  return new DownloadError(
    'license',
    'The server sent a web page (a login or license page) instead of the file: log in or accept the license at the source, and check the token in Settings',
  );
}


const MAX_DETAIL_BYTES = 2048;

async function errorDetail(res: IncomingMessage): Promise<string> {
  // The repository host puts the authoritative reason in headers; the model hub in a JSON body.
  const header = headerOf(res.headers, 'x-error-message');
  if (header) {
    discardBody(res);
    return header.slice(0, 300);
  }
  const text = await readSomeText(res, MAX_DETAIL_BYTES);
  if (!text) return '';
  try {
    const json = JSON.parse(text) as { error?: unknown; message?: unknown; detail?: unknown };
    const parts = [json.error, json.message, json.detail].filter((part): part is string => typeof part === 'string');
    if (parts.length) return parts.join(': ').slice(0, 300);
  } catch {}
  const type = headerOf(res.headers, 'content-type') ?? '';
  return type.includes('html') ? '' : text.replace(/\s+/g, ' ').trim().slice(0, 200);
}

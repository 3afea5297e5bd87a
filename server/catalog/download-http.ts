/**
 * One HTTP GET with redirects followed by hand. The model hub and the repository host answer a
 * download with a redirect to a signed CDN URL; the token must reach the origin and nothing else,
 * so every hop decides on its own whether the origin's auth headers go along.
 */
import { DownloadError } from './download-errors.js';

const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);

export interface HopOptions {
  /** Sent only while the request URL has the same origin (scheme, host, port) as `url`. */
  originHeaders: Record<string, string>;
  /** Sent on every hop (Range, If-Range, Accept-Encoding). */
  commonHeaders: Record<string, string>;
  fetchImpl: typeof fetch;
  signal: AbortSignal;
  maxRedirects?: number;
}

export interface HopResult {
  response: Response;
  /** The URL that produced `response`. */
  url: string;
  /** Whether `response` came from the origin host. */
  atOrigin: boolean;
  /** Whether the origin's auth headers went out on the first hop. */
  tokenSent: boolean;
}

/** GET `url`, following up to `maxRedirects` redirects, auth headers to the origin only. */
export async function getFollowingRedirects(url: string, options: HopOptions): Promise<HopResult> {
  const origin = new URL(url).origin;
  const maxRedirects = options.maxRedirects ?? 5;
  const tokenSent = Object.keys(options.originHeaders).some((name) => name.toLowerCase() === 'authorization');
  let current = url;
  for (let hop = 0; ; hop += 1) {
    const atOrigin = new URL(current).origin === origin;
    const headers = atOrigin ? { ...options.commonHeaders, ...options.originHeaders } : { ...options.commonHeaders };
    const response = await options.fetchImpl(current, { headers, redirect: 'manual', signal: options.signal });
    const location = response.headers.get('location');
    if (!REDIRECT_STATUS.has(response.status) || !location) return { response, url: current, atOrigin, tokenSent };
    await response.body?.cancel().catch(() => undefined);
    if (hop >= maxRedirects) {
      throw new DownloadError('http', `Too many redirects (more than ${maxRedirects}) starting at ${url}`, {
        status: response.status,
      });
    }
    current = new URL(location, current).toString();
  }
}

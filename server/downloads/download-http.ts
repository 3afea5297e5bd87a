/**
 * One HTTP GET with redirects followed by hand, on `node:http` / `node:https` directly: the body
 * arrives as plain Buffers with no web-stream layer in between, which is measurably cheaper on a
 * multi-GB download. The model hub and the repository host answer a download with a redirect to a
 * signed CDN URL; the token must reach the origin and nothing else, so every hop decides on its
 * own whether the origin's auth headers go along.
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { discardBody, headerOf } from './download-body.js';
import { DownloadError } from './download-errors.js';

const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);
/** Sent on every download request. */
const USER_AGENT = 'Studio';

export interface HopOptions {
  /** Sent only while the request URL has the same origin (scheme, host, port) as `url`. */
  originHeaders: Record<string, string>;
  /** Sent on every hop (Range, If-Range, Accept-Encoding). */
  commonHeaders: Record<string, string>;
  signal: AbortSignal;
}

const MAX_REDIRECTS = 5;

export interface HopResult {
  /** The final answer, body not read yet: read it, or `discardBody` it. */
  response: IncomingMessage;
  /** The URL that produced `response`. */
  url: string;
  /** Whether `response` came from the origin host. */
  atOrigin: boolean;
  /** Whether the origin's auth headers went out on the first hop. */
  tokenSent: boolean;
}

/** GET `url`, following up to `MAX_REDIRECTS` redirects, auth headers to the origin only. */
export async function getFollowingRedirects(url: string, options: HopOptions): Promise<HopResult> {
  const origin = new URL(url).origin;
  const tokenSent = Object.keys(options.originHeaders).some((name) => name.toLowerCase() === 'authorization');
  let current = new URL(url);
  for (let hop = 0; ; hop += 1) {
    const atOrigin = current.origin === origin;
    const headers = atOrigin ? { ...options.commonHeaders, ...options.originHeaders } : { ...options.commonHeaders };
    const response = await getOnce(current, headers, options.signal);
    const location = headerOf(response.headers, 'location');
    const status = response.statusCode ?? 0;
    if (!REDIRECT_STATUS.has(status) || !location) return { response, url: current.toString(), atOrigin, tokenSent };
    discardBody(response);
    if (hop >= MAX_REDIRECTS) {
      throw new DownloadError('http', `Too many redirects (more than ${MAX_REDIRECTS}) starting at ${url}`, { status });
    }
    current = new URL(location, current);
  }
}

/**
 * One GET, resolved once the response head arrived. `agent: false` gives every request its own
 * connection: a download is one long request, so pooling gains nothing, and a pooled socket the
 * server already closed would only turn into a spurious reset.
 */
function getOnce(url: URL, headers: Record<string, string>, signal: AbortSignal): Promise<IncomingMessage> {
  const transport = url.protocol === 'https:' ? https : url.protocol === 'http:' ? http : null;
  if (!transport) {
    return Promise.reject(new DownloadError('http', `Cannot download from ${url.protocol} URLs (only http and https)`));
  }
  return new Promise((resolve, reject) => {
    const req = transport.request(url, { method: 'GET', headers: { 'User-Agent': USER_AGENT, ...headers }, signal, agent: false }, resolve);
    // `on`, not `once`: the socket can fail again after the response arrived (the body then sees
    // it too); an 'error' without a listener would crash the process.
    req.on('error', reject);
    req.end();
  });
}

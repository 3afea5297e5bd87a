/**
 * The engine's own cross-origin guard (its `origin_only_middleware`, on unless CORS is enabled):
 * 403 with an empty body when the browser says `Sec-Fetch-Site: cross-site`, or when a loopback
 * `Host` and the `Origin` name different places (ports compared only when both carry one).
 * Applies to every route, the WebSocket included.
 */
import type { IncomingMessage } from 'node:http';

function isLoopback(hostname: string | undefined): boolean {
  if (!hostname) return false;
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** True when the engine would answer 403. */
export function engineRefusesOrigin(req: IncomingMessage): boolean {
  if (req.headers['sec-fetch-site'] === 'cross-site') return true;
  const host = req.headers.host;
  const origin = req.headers.origin;
  if (!host || !origin) return false;
  let hostUrl: URL;
  let originUrl: URL;
  try {
    hostUrl = new URL(`http://${host.toLowerCase()}`);
    originUrl = new URL(origin.toLowerCase());
  } catch {
    return false;
  }
  if (!isLoopback(hostUrl.hostname)) return false;
  // Python's urlsplit: a missing port is None; then only the host names are compared.
  const hostHasPort = /:\d+$/.test(host);
  const originHasPort = originUrl.port !== '';
  const hostSide = originHasPort ? host.toLowerCase() : hostUrl.hostname;
  const originSide = hostHasPort ? originUrl.host : originUrl.hostname;
  return hostSide !== '' && originSide !== '' && hostSide !== originSide;
}

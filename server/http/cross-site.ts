/**
 * Cross-site request refusal. `SameSite=Strict` does not separate another port or service on
 * the same host, so a state-changing request or a WebSocket upgrade that the browser says comes
 * from elsewhere is refused. Requests without either header come from scripts, the chat bot or
 * `X-API-Key` clients (a page cannot send that header cross-origin without a preflight, which
 * Studio never grants) and go on to authentication.
 */
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export const CROSS_SITE_REFUSED = 'Refused: this request comes from another site or origin';

/** Studio's own origin as the browser sees it for this request. */
function ownOrigin(req: IncomingMessage): string {
  const secure = Boolean((req.socket as TLSSocket).encrypted);
  return `${secure ? 'https' : 'http'}://${(req.headers.host ?? '').toLowerCase()}`;
}

/** True when the browser says this request comes from elsewhere. */
export function isCrossSite(req: IncomingMessage): boolean {
  const site = req.headers['sec-fetch-site'];
  if (typeof site === 'string') return site !== 'same-origin' && site !== 'none';
  const origin = req.headers.origin;
  if (typeof origin !== 'string') return false;
  return origin.toLowerCase() !== ownOrigin(req);
}

/** Whether this request must pass the cross-site check (state-changing methods and upgrades). */
export function needsSameOrigin(req: IncomingMessage, upgrade = false): boolean {
  return upgrade || !SAFE_METHODS.has((req.method ?? 'GET').toUpperCase());
}

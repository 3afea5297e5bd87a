/**
 * How clients of the engine's own API (issue 44) may present a Studio key, on the door's paths
 * only (`/comfy/…`): `Authorization: Bearer <key>`, HTTP Basic with the key as password (any user
 * name), or `?token=<key>` (one client library puts it there on every URL, its socket included).
 * `X-API-Key` works there as everywhere. The rest of Studio keeps its one header.
 */
import type { IncomingMessage } from 'node:http';

/** The door's path prefix (the door's own port is mapped onto it). */
export const DOOR_PREFIX = '/comfy';

export function isDoorPath(url: string | undefined): boolean {
  const path = (url ?? '/').split('?', 1)[0]!.toLowerCase();
  return path === DOOR_PREFIX || path.startsWith(`${DOOR_PREFIX}/`);
}

/** The key a door request carries in one of the engine clients' ways, or null. */
export function doorKey(req: IncomingMessage): string | null {
  if (!isDoorPath(req.url)) return null;
  const header = req.headers.authorization;
  if (typeof header === 'string') {
    const [scheme, value = ''] = header.trim().split(/\s+/, 2);
    if (scheme?.toLowerCase() === 'bearer' && value) return value;
    if (scheme?.toLowerCase() === 'basic' && value) {
      const decoded = Buffer.from(value, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      const password = colon < 0 ? '' : decoded.slice(colon + 1);
      if (password) return password;
    }
  }
  const token = new URL(req.url ?? '/', 'http://door').searchParams.get('token');
  return token || null;
}

/** A request URL as the log may show it: a `?token=` key masked (the log must not carry a key). */
export function loggableUrl(url: string): string {
  return url.replace(/([?&]token=)[^&#]*/gi, '$1***');
}

/**
 * Who may use Studio: a signed session cookie or the `X-API-Key` header, checked the same way
 * for HTTP requests and the WebSocket handshake.
 */
import type { IncomingMessage } from 'node:http';
import { parseCookies, SESSION_COOKIE, type SessionSigner } from './session.js';

export type AuthMethod = 'cookie' | 'key';

/** Paths anyone may reach (spec, Authentication 1). */
export function isPublicPath(path: string): boolean {
  return path === '/login' || path === '/api/auth/login' || path === '/api/health' || path.startsWith('/static/');
}

/** Loopback host names: cookies for them may be `Secure` even over plain HTTP. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host) || host.endsWith('.localhost');
}

export class Authenticator {
  constructor(readonly signer: SessionSigner) {}

  /** How the request is authenticated, or null. */
  authenticate(req: IncomingMessage): AuthMethod | null {
    const key = req.headers['x-api-key'];
    if (typeof key === 'string' && this.signer.checkKey(key)) return 'key';
    const cookie = parseCookies(req.headers.cookie).get(SESSION_COOKIE);
    if (this.signer.verify(cookie)) return 'cookie';
    return null;
  }
}

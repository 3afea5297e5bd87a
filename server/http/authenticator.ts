/**
 * Who may use Studio: a signed session cookie or the `X-API-Key` header, checked the same way
 * for HTTP requests and the WebSocket handshake. Every key check (these and the login form)
 * goes through one limiter; a request that presents no key is not a failed check. Studio's own
 * chat bot calls the API with a per-boot internal credential instead (from this machine only),
 * so no flood of wrong keys on the public path can lock it out.
 */
import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { KeyLimiter, LimiterVerdict } from './key-limiter.js';
import { parseCookies, safeEqual, SESSION_COOKIE, type SessionPayload, type SessionSigner } from './session.js';

/** The header carrying the internal credential of Studio's in-process clients. */
const INTERNAL_AUTH_HEADER = 'X-Studio-Internal';

export type AuthResult =
  | { kind: 'key' }
  | { kind: 'internal' }
  | { kind: 'cookie'; session: SessionPayload }
  | { kind: 'none' }
  | { kind: 'bad-key' }
  | { kind: 'throttled'; retryAfterS: number };

/** Called once per blocked burst; never receives the keys that were tried. */
export type ThrottledListener = (address: string, verdict: LimiterVerdict) => void;

/** Paths anyone may reach (spec, Authentication 1). */
export function isPublicPath(path: string): boolean {
  return path === '/login' || path === '/api/auth/login' || path === '/api/health' || path.startsWith('/static/');
}

/** Loopback host names: cookies for them may be `Secure` even over plain HTTP. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host) || host.endsWith('.localhost');
}

/** The client address a limiter counts (IPv4-mapped IPv6 folded to IPv4). */
export function clientAddress(req: IncomingMessage): string {
  return (req.socket.remoteAddress ?? 'unknown').replace(/^::ffff:/, '');
}

/** The connection comes from this machine: loopback, or from the very address it reached. */
function fromThisMachine(req: IncomingMessage): boolean {
  const remote = clientAddress(req);
  const local = (req.socket.localAddress ?? '').replace(/^::ffff:/, '');
  return isLoopbackHost(remote) || (remote !== 'unknown' && remote === local);
}

export class Authenticator {
  /** Made at each boot, never stored or shown: only Studio's own process can know it. */
  private readonly internalToken = crypto.randomBytes(32).toString('base64url');

  constructor(
    readonly signer: SessionSigner,
    private readonly limiter: KeyLimiter,
    private readonly onThrottled: ThrottledListener = () => {},
  ) {}

  /** The headers an in-process client (the chat bot) sends instead of the API key. */
  internalCredential(): Record<string, string> {
    return { [INTERNAL_AUTH_HEADER]: this.internalToken };
  }

  /** How the request is authenticated (cookie first: a signed-in browser never meets the limiter). */
  authenticate(req: IncomingMessage): AuthResult {
    const cookie = parseCookies(req.headers.cookie).get(SESSION_COOKIE);
    const session = this.signer.verify(cookie);
    if (session) return { kind: 'cookie', session };
    const internal = req.headers[INTERNAL_AUTH_HEADER.toLowerCase()];
    if (typeof internal === 'string' && fromThisMachine(req) && safeEqual(internal, this.internalToken)) return { kind: 'internal' };
    const key = req.headers['x-api-key'];
    if (typeof key !== 'string' || key.length === 0) return { kind: 'none' };
    return this.checkKey(clientAddress(req), key);
  }

  /** One key check through the limiter (login form and `X-API-Key` alike). */
  checkKey(address: string, candidate: string): AuthResult {
    const verdict = this.limiter.check(address);
    if (!verdict.allowed) {
      if (verdict.newlyBlocked) this.onThrottled(address, verdict);
      return { kind: 'throttled', retryAfterS: verdict.retryAfterS };
    }
    if (this.signer.checkKey(candidate)) {
      this.limiter.succeed(address);
      return { kind: 'key' };
    }
    this.limiter.fail(address);
    return { kind: 'bad-key' };
  }
}

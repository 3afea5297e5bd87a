/**
 * Who may use Studio: a signed session cookie or the `X-API-Key` header, checked the same way
 * for HTTP requests and the WebSocket handshake. Every key check (these and the login form)
 * goes through one limiter; a request that presents no key is not a failed check. Studio's own
 * chat bot calls the API with a per-boot internal credential instead (from this machine only),
 * so no flood of wrong keys on the public path can lock it out.
 *
 * Each success names its actor (issue 43): the owner for the API key, the internal credential and
 * the owner's sessions; the person for a personal key or a session signed in by name and password
 * (asked of `People` on every request, so disabling a person or revoking a key applies at once).
 */
import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { OWNER_ACTOR, type Actor } from './actor.js';
import { doorKey } from './door-credentials.js';
import type { KeyLimiter, LimiterVerdict } from './key-limiter.js';
import type { People } from './people.js';
import { parseCookies, safeEqual, SESSION_COOKIE, type SessionPayload, type SessionSigner } from './session.js';

/** The header carrying the internal credential of Studio's in-process clients. */
const INTERNAL_AUTH_HEADER = 'X-Studio-Internal';
/**
 * The person a chat-bot chat is bound to and the personal key that bound it: read only beside the
 * internal credential (nobody else can name a person), and checked on every call.
 */
const PERSON_HEADER = 'X-Studio-Person';
const PERSON_KEY_HEADER = 'X-Studio-Person-Key';

/** A chat bound to a person (issue 43): whose personal key admitted it. */
export interface Binding {
  userId: string;
  keyId: string;
}

export type AuthResult =
  | { kind: 'key'; actor: Actor }
  | { kind: 'internal'; actor: Actor }
  | { kind: 'cookie'; session: SessionPayload; actor: Actor }
  | { kind: 'none' }
  | { kind: 'bad-key' }
  /** The internal credential named a person whose binding key is revoked, or who is disabled. */
  | { kind: 'ended' }
  | { kind: 'throttled'; retryAfterS: number };

/** A sign-in by name and password: the person, or why not. */
export type SignInResult = { kind: 'signed-in'; actor: Actor } | { kind: 'bad-password' } | { kind: 'throttled'; retryAfterS: number };

/** Called once per blocked burst; never receives the keys that were tried. `subject`: the person a password was tried for. */
export type ThrottledListener = (address: string, verdict: LimiterVerdict, subject?: string) => void;

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
    private readonly people: People | null = null,
  ) {}

  /** The headers an in-process client (the chat bot) sends instead of the API key; as the owner unless `as` binds a person. */
  internalCredential(as: Binding | null = null): Record<string, string> {
    return { [INTERNAL_AUTH_HEADER]: this.internalToken, ...(as ? { [PERSON_HEADER]: as.userId, [PERSON_KEY_HEADER]: as.keyId } : {}) };
  }

  /** How the request is authenticated (cookie first: a signed-in browser never meets the limiter). */
  authenticate(req: IncomingMessage): AuthResult {
    const cookie = parseCookies(req.headers.cookie).get(SESSION_COOKIE);
    const session = this.signer.verify(cookie);
    if (session) {
      // A person's session ends with their access (disabled); it then counts as no cookie at all.
      const actor = session.u === undefined ? OWNER_ACTOR : (this.people?.sessionActor(session.u, session.iat) ?? null);
      if (actor) return { kind: 'cookie', session, actor };
    }
    const internal = req.headers[INTERNAL_AUTH_HEADER.toLowerCase()];
    if (typeof internal === 'string' && fromThisMachine(req) && safeEqual(internal, this.internalToken)) return this.internalActor(req);
    const header = req.headers['x-api-key'];
    // The engine API's clients present the key their own ways, on its paths only (issue 44).
    const key = typeof header === 'string' && header.length > 0 ? header : doorKey(req);
    if (typeof key !== 'string' || key.length === 0) return { kind: 'none' };
    return this.checkKey(clientAddress(req), key, true);
  }

  /** The internal credential's actor: the owner, or the person a bound chat names (asked every time). */
  private internalActor(req: IncomingMessage): AuthResult {
    const userId = req.headers[PERSON_HEADER.toLowerCase()];
    if (userId === undefined) return { kind: 'internal', actor: OWNER_ACTOR };
    const keyId = req.headers[PERSON_KEY_HEADER.toLowerCase()];
    const actor = typeof userId === 'string' && typeof keyId === 'string' ? (this.people?.boundActor(userId, keyId) ?? null) : null;
    return actor ? { kind: 'internal', actor } : { kind: 'ended' };
  }

  /**
   * One key check through the limiter (login form, `X-API-Key`, the settings' reveal). Only the
   * `X-API-Key` header (`personal`) also takes a person's key: the login form and the reveal's
   * second factor ask for the owner's key itself, so a narrow key never becomes a full session.
   */
  checkKey(address: string, candidate: string, personal = false): AuthResult {
    const verdict = this.limiter.check(address);
    if (!verdict.allowed) {
      if (verdict.newlyBlocked) this.onThrottled(address, verdict);
      return { kind: 'throttled', retryAfterS: verdict.retryAfterS };
    }
    const actor = this.signer.checkKey(candidate) ? OWNER_ACTOR : personal ? (this.people?.keyActor(candidate) ?? null) : null;
    if (actor) {
      this.limiter.succeed(address);
      return { kind: 'key', actor };
    }
    this.limiter.fail(address);
    return { kind: 'bad-key' };
  }

  /**
   * A sign-in by name and password, throttled per address and per person. The attempt counts as a
   * failure before the slow check and is cleared by a success, so parallel guesses cannot slip
   * past the ceiling while the hashes run.
   */
  async signIn(address: string, name: string, password: string): Promise<SignInResult> {
    // Folded as the people store folds names (NFKC, lower case): `ＡＮＮ` is Ann's subject too.
    const subject = name.trim().normalize('NFKC').toLowerCase();
    const verdict = this.limiter.check(address, subject);
    if (!verdict.allowed) {
      if (verdict.newlyBlocked) this.onThrottled(address, verdict, subject);
      return { kind: 'throttled', retryAfterS: verdict.retryAfterS };
    }
    this.limiter.fail(address, subject);
    const actor = this.people ? await this.people.signIn(name, password) : null;
    if (!actor) return { kind: 'bad-password' };
    this.limiter.succeed(address, subject);
    return { kind: 'signed-in', actor };
  }
}

/**
 * Session cookies: `<payload>.<signature>`, both base64url. The payload carries a random session
 * id, the issue time, an expiry and an HMAC of the API key under the session secret (so changing
 * the key signs everybody out, and the cookie reveals nothing about the key). Renewal slides the
 * expiry but never past `SESSION_LIFETIME_MS` from the issue time; logout revokes the id
 * server-side. Signatures and keys are compared in constant time.
 */
import crypto from 'node:crypto';

export const SESSION_COOKIE = 'session';
export const SESSION_MAX_AGE_S = 86_400;
/** However often it is renewed, a session ends this long after sign-in. */
export const SESSION_LIFETIME_MS = 30 * 86_400_000;

export interface SessionPayload {
  /** Random session id (revocation). */
  sid: string;
  iat: number;
  exp: number;
  /** HMAC(session secret, API key), shortened. */
  k: string;
  /** The person signed in by name and password (absent: the owner, signed in with the API key). */
  u?: string;
}

/** Session ids revoked by logout, until their cookies would have expired anyway. */
export interface RevokedSessions {
  isRevoked(sid: string): boolean;
  revoke(sid: string, expiresMs: number): void;
}

/** Told the id of each session that logout revokes (its open WebSockets close). */
export type RevokeListener = (sid: string) => void;

export class SessionSigner {
  /** The latest expiry handed out per session id: renewals slide it, sockets opened earlier follow. */
  private readonly expiries = new Map<string, number>();
  private readonly revokeListeners = new Set<RevokeListener>();
  /**
   * What the current key hashes to (its SHA-256 and its session tag), made again when the key
   * changes: every request with `X-API-Key` or a cookie compares against these, and hashing the
   * same key for each one was a third of the check.
   */
  private keyHashes: { key: string; digest: Buffer; tag: string } | null = null;

  constructor(
    private readonly secret: Buffer,
    private readonly apiKey: () => string,
    private readonly now: () => number = Date.now,
    private readonly revoked: RevokedSessions | null = null,
  ) {}

  /** A fresh cookie value for a new sign-in (of the owner, or of the person `userId`). */
  issue(userId?: string): string {
    const iat = this.now();
    this.forgetExpired();
    const payload: SessionPayload = { sid: crypto.randomBytes(16).toString('base64url'), iat, exp: this.expiryFor(iat), k: this.keyTag() };
    if (userId !== undefined) payload.u = userId;
    return this.encode(this.remember(payload));
  }

  /** The renewed cookie for a verified session: same id and issue time, expiry slid (capped). */
  renew(payload: SessionPayload): string {
    return this.encode(this.remember({ ...payload, exp: this.expiryFor(payload.iat), k: this.keyTag() }));
  }

  /**
   * Until when a session verified earlier stays valid (a WebSocket it opened lives that long): the
   * latest renewal's expiry, capped by the lifetime; null once it is revoked, expired or made under
   * another key.
   */
  liveUntil(payload: SessionPayload): number | null {
    const until = Math.min(Math.max(payload.exp, this.expiries.get(payload.sid) ?? 0), payload.iat + SESSION_LIFETIME_MS);
    if (until <= this.now() || this.revoked?.isRevoked(payload.sid) || !safeEqual(payload.k, this.keyTag())) return null;
    return until;
  }

  /** Be told of each revoked session id; returns the unsubscribe. */
  onRevoke(listener: RevokeListener): () => void {
    this.revokeListeners.add(listener);
    return () => this.revokeListeners.delete(listener);
  }

  /** The payload when the value is ours, untampered, unexpired, unrevoked and made under the current key. */
  verify(value: string | undefined): SessionPayload | null {
    if (!value) return null;
    const dot = value.indexOf('.');
    if (dot <= 0) return null;
    const body = value.slice(0, dot);
    const given = Buffer.from(value.slice(dot + 1), 'base64url');
    const expected = Buffer.from(this.sign(body), 'base64url');
    if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return null;
    try {
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Partial<SessionPayload>;
      const now = this.now();
      if (typeof payload.exp !== 'number' || payload.exp <= now) return null;
      if (typeof payload.iat !== 'number' || now - payload.iat >= SESSION_LIFETIME_MS) return null;
      if (typeof payload.sid !== 'string' || this.revoked?.isRevoked(payload.sid)) return null;
      if (typeof payload.k !== 'string' || !safeEqual(payload.k, this.keyTag())) return null;
      if (payload.u !== undefined && typeof payload.u !== 'string') return null;
      return this.remember(payload as SessionPayload);
    } catch {
      return null;
    }
  }

  /** Revoke a session (logout): its cookie stops working even if someone copied it. */
  revoke(payload: SessionPayload): void {
    this.revoked?.revoke(payload.sid, Math.min(Math.max(payload.exp, this.expiries.get(payload.sid) ?? 0), payload.iat + SESSION_LIFETIME_MS));
    this.expiries.delete(payload.sid);
    for (const listener of [...this.revokeListeners]) listener(payload.sid);
  }

  private remember(payload: SessionPayload): SessionPayload {
    if (payload.exp > (this.expiries.get(payload.sid) ?? 0)) this.expiries.set(payload.sid, payload.exp);
    return payload;
  }

  /** Sessions nobody renewed before their expiry are over: their entries go (on each sign-in). */
  private forgetExpired(): void {
    const now = this.now();
    for (const [sid, exp] of this.expiries) if (exp <= now) this.expiries.delete(sid);
  }

  private expiryFor(iat: number): number {
    return Math.min(this.now() + SESSION_MAX_AGE_S * 1000, iat + SESSION_LIFETIME_MS);
  }

  private keyTag(): string {
    return this.currentKey().tag;
  }

  private encode(payload: SessionPayload): string {
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${body}.${this.sign(body)}`;
  }

  /** Constant-time check of an API key given by a client. */
  checkKey(candidate: string | undefined): boolean {
    return typeof candidate === 'string' && candidate.length > 0 && crypto.timingSafeEqual(sha256(candidate), this.currentKey().digest);
  }

  /** The hashes of the key as it is now (the settings page may have changed it since the last request). */
  private currentKey(): { key: string; digest: Buffer; tag: string } {
    const key = this.apiKey();
    if (this.keyHashes?.key !== key) {
      const tag = crypto.createHmac('sha256', this.secret).update(`api-key:${key}`).digest('base64url').slice(0, 22);
      this.keyHashes = { key, digest: sha256(key), tag };
    }
    return this.keyHashes;
  }

  private sign(body: string): string {
    return crypto.createHmac('sha256', this.secret).update(body).digest('base64url');
  }
}

/** Compare two strings without leaking where they differ (hashing equalises the lengths). */
export function safeEqual(a: string, b: string): boolean {
  return crypto.timingSafeEqual(sha256(a), sha256(b));
}

function sha256(text: string): Buffer {
  return crypto.createHash('sha256').update(text).digest();
}

/** Cookies of a request header, by name. */
export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!header) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    const raw = part.slice(eq + 1).trim();
    try {
      out.set(name, decodeURIComponent(raw));
    } catch {
      out.set(name, raw);
    }
  }
  return out;
}

/**
 * The `Set-Cookie` value for a session. `secure` follows the request (see README). Rounded, not
 * floored: a renewal computes its expiry a few ms before this, and 86 399.99 s is the spec's 86 400.
 */
export function sessionCookie(value: string, secure: boolean, maxAgeS = SESSION_MAX_AGE_S): string {
  return `${SESSION_COOKIE}=${value}; HttpOnly;${secure ? ' Secure;' : ''} SameSite=Strict; Path=/; Max-Age=${Math.max(0, Math.round(maxAgeS))}`;
}

/** The `Set-Cookie` value that deletes the session. */
export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; HttpOnly;${secure ? ' Secure;' : ''} SameSite=Strict; Path=/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT`;
}

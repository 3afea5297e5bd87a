/**
 * Session cookies: `<payload>.<signature>`, both base64url. The payload carries issue and expiry
 * times and a fingerprint of the API key, so changing the key signs everybody out. Signatures
 * and keys are compared in constant time.
 */
import crypto from 'node:crypto';

export const SESSION_COOKIE = 'session';
export const SESSION_MAX_AGE_S = 86_400;

interface SessionPayload {
  iat: number;
  exp: number;
  /** First bytes of sha256(API key). */
  k: string;
}

export class SessionSigner {
  constructor(
    private readonly secret: Buffer,
    private readonly apiKey: () => string,
    private readonly now: () => number = Date.now,
  ) {}

  /** A fresh cookie value valid for the session maximum age. */
  issue(): string {
    const iat = this.now();
    const payload: SessionPayload = { iat, exp: iat + SESSION_MAX_AGE_S * 1000, k: keyFingerprint(this.apiKey()) };
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${body}.${this.sign(body)}`;
  }

  /** True when the value is ours, untampered, unexpired and made under the current key. */
  verify(value: string | undefined): boolean {
    if (!value) return false;
    const dot = value.indexOf('.');
    if (dot <= 0) return false;
    const body = value.slice(0, dot);
    const given = Buffer.from(value.slice(dot + 1), 'base64url');
    const expected = Buffer.from(this.sign(body), 'base64url');
    if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return false;
    try {
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Partial<SessionPayload>;
      if (typeof payload.exp !== 'number' || payload.exp <= this.now()) return false;
      return typeof payload.k === 'string' && safeEqual(payload.k, keyFingerprint(this.apiKey()));
    } catch {
      return false;
    }
  }

  /** Constant-time check of an API key given by a client. */
  checkKey(candidate: string | undefined): boolean {
    return typeof candidate === 'string' && candidate.length > 0 && safeEqual(candidate, this.apiKey());
  }

  private sign(body: string): string {
    return crypto.createHmac('sha256', this.secret).update(body).digest('base64url');
  }
}

/** Compare two strings without leaking where they differ (hashing equalises the lengths). */
export function safeEqual(a: string, b: string): boolean {
  const ha = crypto.createHash('sha256').update(a).digest();
  const hb = crypto.createHash('sha256').update(b).digest();
  return crypto.timingSafeEqual(ha, hb);
}

function keyFingerprint(key: string): string {
  return crypto.createHash('sha256').update(key).digest('hex').slice(0, 12);
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

/** The `Set-Cookie` value for a session. `secure` follows the request (see README). */
export function sessionCookie(value: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; HttpOnly;${secure ? ' Secure;' : ''} SameSite=Strict; Path=/; Max-Age=${SESSION_MAX_AGE_S}`;
}

/** The `Set-Cookie` value that deletes the session. */
export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; HttpOnly;${secure ? ' Secure;' : ''} SameSite=Strict; Path=/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT`;
}

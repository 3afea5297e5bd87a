/**
 * Login, logout, the login page, and the middleware that guards everything else.
 */
import { isDoorPath } from './door-credentials.js';
import express, { type Request, type RequestHandler, type Response } from 'express';
import { clientAddress, isLoopbackHost, isPublicPath, type AuthResult, type Authenticator } from './authenticator.js';
import { HttpError, validate } from './errors.js';
import { loginPage } from './pages.js';
import { clearedSessionCookie, sessionCookie, type SessionPayload } from './session.js';
import { loginBody, passwordLoginBody } from '../contracts/auth.contract.js';
import type { EventBus } from '../events/event-bus.js';
import { rememberAuth } from './submitter.js';
import { OWNER_ACTOR, setActor } from './actor.js';
import { auditSignIn } from './audit.js';
import { deviceOf, type SignInLog } from './sign-in-log.js';

const DEFAULT_REDIRECT = '/home';
/** The login form sends a key and a path: a few KB is plenty, and the route is public. */
export const LOGIN_BODY_LIMIT = '4kb';

/** `Secure` when the request came over HTTPS or to a loopback host (browsers treat both as secure). */
function cookieShouldBeSecure(req: Request): boolean {
  return req.secure || isLoopbackHost(req.hostname ?? '');
}

/**
 * Only same-origin paths may be a post-login target; anything else falls back to `/home`. The
 * value is resolved the way a browser would resolve it against Studio's origin, so tricks like
 * `/\t/evil.example` or `/\\evil.example` cannot leave the site.
 */
function safeNext(next: string | undefined): string {
  // Control characters and backslashes: browsers strip or flip them, turning a path into a host.
  if (!next || !next.startsWith('/') || next.includes('\\') || [...next].some(isControl)) return DEFAULT_REDIRECT;
  const base = 'http://studio.invalid';
  let url: URL;
  try {
    url = new URL(next, base);
  } catch {
    return DEFAULT_REDIRECT;
  }
  if (url.origin !== base || url.pathname === '/login') return DEFAULT_REDIRECT;
  // Dot segments resolve `/.//evil.example` to `//evil.example`: judge what the browser will get.
  const target = `${url.pathname}${url.search}${url.hash}`;
  return isSameOriginPath(target) ? target : DEFAULT_REDIRECT;
}

/** A path a browser resolves against the current origin: one `/`, not `//` or `/\` (another host). */
function isSameOriginPath(target: string): boolean {
  return target.startsWith('/') && target[1] !== '/' && target[1] !== '\\' && ![...target].some(isControl);
}

function isControl(char: string): boolean {
  const code = char.charCodeAt(0);
  return code < 0x20 || code === 0x7f;
}

/** Set the renewed session cookie: same session, expiry slid but capped at its lifetime. */
function renewCookie(auth: Authenticator, req: Request, res: Response, session: SessionPayload): void {
  const value = auth.signer.renew(session);
  const exp = (JSON.parse(Buffer.from(value.split('.')[0]!, 'base64url').toString('utf8')) as SessionPayload).exp;
  res.append('Set-Cookie', sessionCookie(value, cookieShouldBeSecure(req), (exp - Date.now()) / 1000));
}

/** Turn a failed key check into its HTTP error (429 with Retry-After, or 401). */
function keyCheckError(result: AuthResult, res: Response, unauthenticated: string): HttpError {
  if (result.kind === 'throttled') {
    res.set('Retry-After', String(result.retryAfterS));
    return new HttpError(429, `Too many wrong API keys; try again in ${result.retryAfterS} s`);
  }
  if (result.kind === 'ended') return new HttpError(401, 'The personal key this chat was admitted with no longer works (revoked, or its person disabled)');
  return new HttpError(401, unauthenticated);
}

/** Guards every non-public route; renews the cookie on each authenticated request (sliding expiry). */
export function requireAuth(auth: Authenticator): RequestHandler {
  return (req, res, next) => {
    if (isPublicPath(req.path)) return next();
    const result = auth.authenticate(req);
    rememberAuth(res, result);
    if (result.kind === 'cookie' || result.kind === 'key' || result.kind === 'internal') setActor(res, result.actor);
    if (result.kind === 'cookie') {
      renewCookie(auth, req, res, result.session);
      return next();
    }
    if (result.kind === 'key' || result.kind === 'internal') return next();
    // The engine API's clients are programs: a 401, never the sign-in page.
    if (result.kind === 'throttled' || req.path === '/api' || req.path.startsWith('/api/') || isDoorPath(req.path)) {
      next(keyCheckError(result, res, 'Not authenticated: sign in or send the X-API-Key header'));
      return;
    }
    res.redirect(302, `/login?next=${encodeURIComponent(req.originalUrl)}`);
  };
}

/** `GET /login`, `POST /api/auth/login`, `POST /api/auth/logout`. */
export function authRoutes({ auth, signIns, events }: { auth: Authenticator; signIns?: SignInLog; events?: EventBus }): express.Router {
  const router = express.Router();

  router.get('/login', (_req, res) => {
    res.type('html').set('Cache-Control', 'no-store').send(loginPage());
  });

  router.post('/api/auth/login', async (req, res) => {
    const raw: unknown = req.body ?? {};
    const address = clientAddress(req);
    // A body naming a person signs that person in; any other is the spec's API-key form.
    if (typeof raw === 'object' && raw !== null && ('name' in raw || 'password' in raw)) {
      const body = validate(passwordLoginBody, raw);
      const result = await auth.signIn(address, body.name, body.password);
      if (result.kind === 'throttled') {
        res.set('Retry-After', String(result.retryAfterS));
        throw new HttpError(429, `Too many wrong passwords; try again in ${result.retryAfterS} s`);
      }
      if (result.kind !== 'signed-in') {
        if (events) auditSignIn(events, address, { name: body.name });
        throw new HttpError(401, 'Wrong name or password');
      }
      res.append('Set-Cookie', sessionCookie(auth.signer.issue(result.actor.userId), cookieShouldBeSecure(req)));
      if (events) auditSignIn(events, address, { actor: result.actor, via: 'password' });
      res.json({ status: 'ok', redirect: safeNext(body.next) });
      return;
    }
    const body = validate(loginBody, raw);
    const result = auth.checkKey(address, body.api_key);
    if (result.kind !== 'key') {
      if (events && result.kind === 'bad-key') auditSignIn(events, address, { name: null });
      throw keyCheckError(result, res, 'Invalid API key');
    }
    res.append('Set-Cookie', sessionCookie(auth.signer.issue(), cookieShouldBeSecure(req)));
    signIns?.record(deviceOf(req));
    if (events) auditSignIn(events, address, { actor: OWNER_ACTOR, via: 'api_key' });
    res.json({ status: 'ok', redirect: safeNext(body.next) });
  });

  router.post('/api/auth/logout', (req, res) => {
    // The session is revoked server-side: a copy of the cookie stops working too.
    const result = auth.authenticate(req);
    if (result.kind === 'cookie') auth.signer.revoke(result.session);
    // Replaces the renewal that requireAuth added for this very request.
    res.setHeader('Set-Cookie', [clearedSessionCookie(cookieShouldBeSecure(req))]);
    res.redirect(302, '/login');
  });

  return router;
}

/**
 * Login, logout, the login page, and the middleware that guards everything else.
 */
import express, { type Request, type RequestHandler } from 'express';
import { z } from 'zod';
import type { EventBus } from '../events/event-bus.js';
import { isLoopbackHost, isPublicPath, type Authenticator } from './authenticator.js';
import { HttpError, validate } from './errors.js';
import type { LoginLimiter } from './login-limiter.js';
import { loginPage } from './pages.js';
import { clearedSessionCookie, sessionCookie } from './session.js';

const DEFAULT_REDIRECT = '/home';

const loginBody = z.object({
  api_key: z.string({ error: 'required (string)' }),
  next: z.string().optional(),
});

/** `Secure` when the request came over HTTPS or to a loopback host (browsers treat both as secure). */
export function cookieShouldBeSecure(req: Request): boolean {
  return req.secure || isLoopbackHost(req.hostname ?? '');
}

/** Only same-site paths may be a post-login target; anything else falls back to `/home`. */
export function safeNext(next: string | undefined): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return DEFAULT_REDIRECT;
  if (next === '/login' || next.startsWith('/login?') || /[\r\n]/.test(next)) return DEFAULT_REDIRECT;
  return next;
}

/** Guards every non-public route; renews the cookie on each authenticated request (sliding expiry). */
export function requireAuth(auth: Authenticator): RequestHandler {
  return (req, res, next) => {
    if (isPublicPath(req.path)) return next();
    const method = auth.authenticate(req);
    if (method === 'cookie') {
      res.append('Set-Cookie', sessionCookie(auth.signer.issue(), cookieShouldBeSecure(req)));
      return next();
    }
    if (method === 'key') return next();
    if (req.path === '/api' || req.path.startsWith('/api/')) {
      next(new HttpError(401, 'Not authenticated: sign in or send the X-API-Key header'));
      return;
    }
    res.redirect(302, `/login?next=${encodeURIComponent(req.originalUrl)}`);
  };
}

export interface AuthRouteDeps {
  auth: Authenticator;
  limiter: LoginLimiter;
  events: EventBus;
}

/** `GET /login`, `POST /api/auth/login`, `POST /api/auth/logout`. */
export function authRoutes({ auth, limiter, events }: AuthRouteDeps): express.Router {
  const router = express.Router();

  router.get('/login', (_req, res) => {
    res.type('html').set('Cache-Control', 'no-store').send(loginPage());
  });

  router.post('/api/auth/login', (req, res) => {
    const address = req.socket.remoteAddress ?? 'unknown';
    const verdict = limiter.check(address);
    if (!verdict.allowed) {
      if (verdict.newlyBlocked) {
        events.emit('auth.login.throttled', 'warning', `Too many failed logins from ${address}; login paused for it`, { address });
      }
      res.set('Retry-After', String(verdict.retryAfterS));
      throw new HttpError(429, `Too many failed logins; try again in ${verdict.retryAfterS} s`);
    }
    const body = validate(loginBody, req.body ?? {});
    if (!auth.signer.checkKey(body.api_key)) {
      limiter.fail(address);
      throw new HttpError(401, 'Invalid API key');
    }
    limiter.succeed(address);
    res.append('Set-Cookie', sessionCookie(auth.signer.issue(), cookieShouldBeSecure(req)));
    res.json({ status: 'ok', redirect: safeNext(body.next) });
  });

  router.post('/api/auth/logout', (req, res) => {
    // Replaces the renewal that requireAuth added for this very request.
    res.setHeader('Set-Cookie', [clearedSessionCookie(cookieShouldBeSecure(req))]);
    res.redirect(302, '/login');
  });

  return router;
}

/**
 * The Express application and its HTTP(S) server: middleware order, the WebSocket endpoint, and
 * the single error middleware at the end. The request guards (Host, cross-site, authentication)
 * run before any router, so routes added later are covered without code of their own.
 */
import express from 'express';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { EventBus } from '../events/event-bus.js';
import type { Logger } from '../logging.js';
import { OWNER_ACTOR, type Actor } from './actor.js';
import { auditAdminChanges } from './audit.js';
import { clientAddress, isLoopbackHost, type Authenticator } from './authenticator.js';
import { LOGIN_BODY_LIMIT, requireAuth } from './auth.routes.js';
import { CROSS_SITE_REFUSED, isCrossSite, needsSameOrigin } from './cross-site.js';
import { errorMiddleware, notFound } from './error-middleware.js';
import { HOST_REFUSED, isAllowedHost, refuse, type HostRuleOptions } from './host-guard.js';
import { maintenanceGate, type Maintenance } from './maintenance.js';
import { requestId } from './request-id.js';
import { ownerOnlyChanges, routePolicy } from './route-policy.js';
import { securityHeaders } from './security-headers.js';
import type { StorageFaults } from './storage-faults.js';
import type { SessionPayload } from './session.js';
import type { WsEventMap } from '../contracts/ws.contract.js';
import type { WsHub } from './ws-hub.js';
import { attachWebSockets, type WsHandler } from './ws-server.js';

/** Slow clients: the whole request head within this, the whole request within the next. */
const HEADERS_TIMEOUT_MS = 20_000;
const REQUEST_TIMEOUT_MS = 60_000;
/** Concurrent WebSocket clients one LAN address may hold (loopback is this machine's own). */
export const MAX_WS_PER_ADDRESS = 16;

export interface HttpDeps {
  logger: Logger;
  auth: Authenticator;
  maintenance: Maintenance;
  hub: WsHub;
  /** Which Host names are this Studio's. */
  hosts: HostRuleOptions;
  /** PEM certificate and key: serve HTTPS/WSS. */
  tls?: { cert: string; key: string } | null;
  /** The first frame each WebSocket client receives. */
  greeting: () => WsEventMap['hello'];
  /** Routers of the capabilities, mounted in order after authentication. */
  routers: express.Router[];
  /** Routers that serve pages; mounted after the API routes and the `/api` 404. */
  pageRouters?: express.Router[];
  /** Sockets an address holds on the other WebSocket paths (the engine API's), counted in its cap. */
  otherSockets?: (address: string) => number;
  /** More WebSocket paths, admitted like `/ws` (an agent's engine relay). */
  wsRoutes?: Array<{ path: string; handle: WsHandler }>;
  /** Full-disk and damaged-database answers (507, a 500 that says what to do). */
  storage?: StorageFaults;
  /** Where every owner-or-admin change is recorded, with who made it (issue 43). */
  audit?: EventBus;
}

/** Build the app and an HTTP server for it (not yet listening). */
export function createHttpServer(deps: HttpDeps): { app: express.Express; server: http.Server } {
  const app = express();
  const server = deps.tls
    ? https.createServer({ cert: fs.readFileSync(deps.tls.cert), key: fs.readFileSync(deps.tls.key) }, app)
    : http.createServer(app);
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  app.disable('x-powered-by');
  app.set('etag', false);
  // Behind HTTPS req.secure is true, so every session cookie is Secure.
  if (deps.tls) app.set('trust proxy', false);

  // The session a cookie handshake was admitted with: the hub closes the socket when it ends.
  const handshakeSessions = new WeakMap<http.IncomingMessage, SessionPayload>();
  // The person the handshake authenticated: the hub sends them only what they may see.
  const handshakeActors = new WeakMap<http.IncomingMessage, Actor>();
  attachWebSockets(server, {
    maxPayload: 64 * 1024,
    logger: deps.logger,
    // Refuse at the handshake, before any frame flows: same rules as HTTP.
    admit: (info, done) => {
      const req = info.req;
      if (!isAllowedHost(req.headers.host, deps.hosts)) return done(false, 421, HOST_REFUSED);
      if (isCrossSite(req)) return done(false, 403, CROSS_SITE_REFUSED);
      if (deps.maintenance.active) return done(false, 503, 'System is updating, please wait...');
      const result = deps.auth.authenticate(req);
      if (result.kind === 'cookie') handshakeSessions.set(req, result.session);
      if (result.kind === 'throttled') return done(false, 429, 'Too many wrong API keys', { 'Retry-After': String(result.retryAfterS) });
      if (result.kind !== 'cookie' && result.kind !== 'key' && result.kind !== 'internal') return done(false, 401, 'Not authenticated');
      handshakeActors.set(req, result.actor);
      const address = clientAddress(req);
      if (!isLoopbackHost(address) && deps.hub.countFrom(address) + (deps.otherSockets?.(address) ?? 0) >= MAX_WS_PER_ADDRESS) {
        return done(false, 429, `Too many open connections from ${address}`);
      }
      done(true);
    },
    actorOf: (req) => handshakeActors.get(req) ?? OWNER_ACTOR,
    routes: new Map<string, WsHandler>([
      ['/ws', (socket, req, actor) => deps.hub.add(socket, deps.greeting(), clientAddress(req), handshakeSessions.get(req) ?? null, actor)],
      ...(deps.wsRoutes ?? []).map((route): [string, WsHandler] => [route.path, route.handle]),
    ]),
  });

  app.use((req, res, next) => {
    if (!isAllowedHost(req.headers.host, deps.hosts)) return refuse(req, res, 421, HOST_REFUSED);
    if (needsSameOrigin(req) && isCrossSite(req)) return refuse(req, res, 403, CROSS_SITE_REFUSED);
    next();
  });
  app.use(requestId());
  app.use(securityHeaders());
  app.use(maintenanceGate(deps.maintenance));
  // The login route is public: its body is capped before anything reads it.
  app.use('/api/auth/login', express.json({ limit: LOGIN_BODY_LIMIT }));
  app.use(requireAuth(deps.auth));
  // Who may call what (one table, `route-policy.ts`); a refused admin change is audited too.
  if (deps.audit) app.use(auditAdminChanges(deps.audit));
  app.use(routePolicy());
  app.use(express.json({ limit: '5mb' }));
  app.use(ownerOnlyChanges());
  for (const router of deps.routers) app.use(router);
  app.all(['/api', '/api/{*rest}'], notFound());
  for (const router of deps.pageRouters ?? []) app.use(router);
  app.use(notFound());
  app.use(errorMiddleware(deps.logger, deps.storage));
  return { app, server };
}

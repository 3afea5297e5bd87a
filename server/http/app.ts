/**
 * The Express application and its HTTP server: middleware order, the WebSocket endpoint, and
 * the single error middleware at the end.
 */
import express from 'express';
import expressWs from 'express-ws';
import http from 'node:http';
import type { Logger } from '../logging.js';
import { type Authenticator } from './authenticator.js';
import { errorMiddleware, notFound } from './error-middleware.js';
import { maintenanceGate, type Maintenance } from './maintenance.js';
import { requestId } from './request-id.js';
import { requireAuth } from './auth.routes.js';
import type { WsEventMap } from './ws-events.js';
import type { WsHub } from './ws-hub.js';

export interface HttpDeps {
  logger: Logger;
  auth: Authenticator;
  maintenance: Maintenance;
  hub: WsHub;
  /** The first frame each WebSocket client receives. */
  greeting: () => WsEventMap['hello'];
  /** Routers of the capabilities, mounted in order after authentication. */
  routers: express.Router[];
  /** Routers that serve pages; mounted after the API routes and the `/api` 404. */
  pageRouters?: express.Router[];
}

/** Build the app and an HTTP server for it (not yet listening). */
export function createHttpServer(deps: HttpDeps): { app: express.Express; server: http.Server } {
  const app = express();
  const server = http.createServer(app);
  app.disable('x-powered-by');
  app.set('etag', false);

  const ws = expressWs(app, server, {
    leaveRouterUntouched: true,
    wsOptions: {
      maxPayload: 64 * 1024,
      // Refuse at the handshake, before any frame flows: same rules as HTTP.
      verifyClient: (info, done) => {
        if (deps.maintenance.active) return done(false, 503, 'System is updating, please wait...');
        if (!deps.auth.authenticate(info.req)) return done(false, 401, 'Not authenticated');
        done(true);
      },
    },
  });
  ws.app.ws('/ws', (socket) => deps.hub.add(socket, deps.greeting()));
  // ws re-emits the HTTP server's errors (EADDRINUSE at listen) on itself; the listener of
  // `server.listen` reports them, so here they only must not become uncaught exceptions.
  ws.getWss().on('error', (err) => deps.logger.debug(`WebSocket server: ${err.message}`));

  app.use(requestId());
  app.use(maintenanceGate(deps.maintenance));
  app.use(requireAuth(deps.auth));
  app.use(express.json({ limit: '5mb' }));
  for (const router of deps.routers) app.use(router);
  app.all(['/api', '/api/{*rest}'], notFound());
  for (const router of deps.pageRouters ?? []) app.use(router);
  app.use(notFound());
  app.use(errorMiddleware(deps.logger));
  return { app, server };
}

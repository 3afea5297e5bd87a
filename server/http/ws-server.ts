/**
 * The WebSocket side of Studio's HTTP server: each upgrade goes to the handler of its path, after
 * `admit` (the same Host, cross-site, maintenance and authentication rules as HTTP, checked at the
 * handshake, before any frame flows). A path without a handler is refused with 404.
 *
 * One `ws` server (the version Studio depends on) without compression.
 */
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type VerifyClientCallbackAsync, type WebSocket } from 'ws';
import type { Logger } from '../logging.js';
import type { Actor } from './actor.js';

/** Takes over an admitted connection: the WebSocket, its upgrade request and who it authenticated as. */
export type WsHandler = (socket: WebSocket, req: http.IncomingMessage, actor: Actor) => void;

export interface WsServerOptions {
  /** Handlers by path (`/ws`); a trailing slash is ignored, the query string too. */
  routes: ReadonlyMap<string, WsHandler>;
  /** Admission of a handshake: `done(false, status, message)` answers it and creates no WebSocket. */
  admit: VerifyClientCallbackAsync<http.IncomingMessage>;
  /** The largest frame a client may send (Studio's clients only listen). */
  maxPayload: number;
  /** Who the handshake authenticated as. */
  actorOf: (req: http.IncomingMessage) => Actor;
  logger: Logger;
}

/** Serve WebSocket upgrades on `server`. */
export function attachWebSockets(server: http.Server, options: WsServerOptions): WebSocketServer {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxPayload,
    perMessageDeflate: false,
    // The hub (and each route) keeps its own list; ws's set would be a second one.
    clientTracking: false,
    verifyClient: options.admit,
  });
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const handler = options.routes.get(routePath(req.url));
    if (!handler) return refuseUpgrade(socket, 404, 'Not Found');
    wss.handleUpgrade(req, socket, head, (ws) => handler(ws, req, options.actorOf(req)));
  });
  wss.on('error', (err) => options.logger.debug(`WebSocket server: ${err.message}`));
  return wss;
}

function routePath(url: string | undefined): string {
  const pathname = (url ?? '/').split('?', 1)[0]!;
  return pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
}

/** An HTTP answer on a socket that asked to upgrade, then the end of it. */
function refuseUpgrade(socket: Duplex, status: number, message: string): void {
  socket.on('error', () => {});
  socket.once('finish', () => socket.destroy());
  socket.end(`HTTP/1.1 ${status} ${message}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(message)}\r\n\r\n${message}`);
}

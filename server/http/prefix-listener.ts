/**
 * A listener of its own for one path prefix of Studio's server (`COMFY_API_PORT`, issue 44): a
 * request or WebSocket upgrade to `/x` on it is handled by the main server as `<prefix>/x`, with
 * every rule of the main server (Host, cross-site, authentication, who may call what). For clients
 * that cannot take a path (one library always opens its socket at `/ws`).
 */
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';

/** A server that hands everything to `main` under `prefix` (not yet listening). */
export function prefixListener(main: http.Server, prefix: string, tls?: { cert: string; key: string } | null): http.Server {
  const under = (req: http.IncomingMessage) => {
    const url = req.url ?? '/';
    req.url = `${prefix}${url.startsWith('/') ? url : `/${url}`}`;
  };
  const handle = (req: http.IncomingMessage, res: http.ServerResponse) => {
    under(req);
    main.emit('request', req, res);
  };
  const server = tls ? https.createServer({ cert: fs.readFileSync(tls.cert), key: fs.readFileSync(tls.key) }, handle) : http.createServer(handle);
  server.headersTimeout = main.headersTimeout;
  server.requestTimeout = main.requestTimeout;
  server.on('upgrade', (req: http.IncomingMessage, socket, head) => {
    under(req);
    main.emit('upgrade', req, socket, head);
  });
  return server;
}

/**
 * A hostile engine for fault tests: a small real proxy in front of a stand-in engine that passes
 * HTTP through untouched and rewrites what the engine's WebSocket says (text messages and binary
 * preview frames) on the way to Studio. Studio is pointed at it as an external engine.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import WebSocket, { WebSocketServer, type RawData } from 'ws';

export interface Tamper {
  /** A text message as the engine sent it → what Studio gets instead (null: dropped). */
  text?(msg: { type: string; data: Record<string, unknown> }): unknown;
  /** A binary frame → what Studio gets instead (null: dropped). */
  binary?(frame: Buffer): Buffer | null;
  /** An HTTP request → an answer of the proxy's own instead of the engine's (null: passed through). */
  http?(req: { method: string; url: string }): { status: number; body: string } | null;
}

export interface HostileEngine {
  readonly port: number;
  close(): Promise<void>;
}

/** Start the proxy on a free port, in front of the engine on `upstreamPort`. */
export async function startHostileEngine(upstreamPort: number, tamper: Tamper): Promise<HostileEngine> {
  const upstreamHost = `127.0.0.1:${upstreamPort}`;
  const server = http.createServer((req, res) => {
    const own = tamper.http?.({ method: req.method ?? 'GET', url: req.url ?? '/' });
    if (own) return void res.writeHead(own.status, { 'Content-Type': 'application/json' }).end(own.body);
    const forward = http.request(
      { host: '127.0.0.1', port: upstreamPort, method: req.method, path: req.url, headers: { ...req.headers, host: upstreamHost } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  const wss = new WebSocketServer({ noServer: true });
  const sockets = new Set<WebSocket>();
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    wss.handleUpgrade(req, socket, head, (client) => {
      const upstream = new WebSocket(`ws://${upstreamHost}${req.url ?? '/ws'}`);
      sockets.add(client);
      sockets.add(upstream);
      upstream.on('message', (data: RawData, isBinary: boolean) => {
        const buffer = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer);
        if (isBinary) {
          const out = tamper.binary ? tamper.binary(buffer) : buffer;
          if (out) client.send(out, { binary: true });
          return;
        }
        const msg = JSON.parse(buffer.toString('utf8')) as { type: string; data: Record<string, unknown> };
        const out = tamper.text ? tamper.text(msg) : msg;
        if (out !== null) client.send(JSON.stringify(out));
      });
      client.on('message', (data: RawData, isBinary: boolean) => {
        if (upstream.readyState === WebSocket.OPEN) upstream.send(data as Buffer, { binary: isBinary });
        else upstream.once('open', () => upstream.send(data as Buffer, { binary: isBinary }));
      });
      upstream.on('close', () => client.close());
      client.on('close', () => upstream.close());
      upstream.on('error', () => client.terminate());
      client.on('error', () => upstream.terminate());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      for (const socket of sockets) socket.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

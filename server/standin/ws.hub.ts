/**
 * The engine's `/ws` endpoint: one socket per `clientId` (the sid), a `status` frame on connect,
 * the optional `feature_flags` handshake, and targeted or broadcast sends.
 */
import type { IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Logger } from '../logging.js';

export interface WsHubDeps {
  logger: Logger;
  queueRemaining(): number;
  /** The server's feature flags, sent in reply to the handshake. */
  serverFeatures(): Record<string, unknown>;
  /** Called after the first status frame (the executor re-sends the current node to its client). */
  onConnect(sid: string): void;
}

interface Client {
  socket: WebSocket;
  flags: Record<string, unknown>;
}

export class WsHub {
  private readonly clients = new Map<string, Client>();
  private readonly wss = new WebSocketServer({ noServer: true });

  constructor(private readonly deps: WsHubDeps) {}

  /** Take over an HTTP upgrade for `/ws` (the caller checked the path). */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, req));
  }

  private accept(socket: WebSocket, req: IncomingMessage): void {
    const query = new URL(req.url ?? '/', 'http://localhost').searchParams;
    const sid = query.get('clientId') || randomUUID().replaceAll('-', '');
    const client: Client = { socket, flags: {} };
    // A reconnect with the same clientId replaces the old socket. Unlike the engine (issue #16010),
    // the old socket's close must not unregister the new one, so only remove our own entry.
    this.clients.set(sid, client);
    let first = true;
    socket.on('message', (data, isBinary) => {
      // Only the first text frame may be the handshake; later ones are ignored, like the engine.
      if (isBinary || !first) return;
      first = false;
      const message = parseJson(data.toString());
      if (message?.type !== 'feature_flags') return;
      client.flags = typeof message.data === 'object' && message.data !== null ? (message.data as Record<string, unknown>) : {};
      this.sendTo(client, JSON.stringify({ type: 'feature_flags', data: this.deps.serverFeatures() }));
    });
    socket.on('close', () => {
      if (this.clients.get(sid) === client) this.clients.delete(sid);
    });
    socket.on('error', (err) => this.deps.logger.debug(`stand-in ws ${sid}: ${err.message}`));
    this.sendTo(client, JSON.stringify({ type: 'status', data: { status: { exec_info: { queue_remaining: this.deps.queueRemaining() } }, sid } }));
    this.deps.onConnect(sid);
  }

  /** Send a JSON event to one client (dropped when it is not connected), or to all when sid is null. */
  send(type: string, data: unknown, sid: string | null): void {
    this.sendFrame(JSON.stringify({ type, data }), sid);
  }

  /** Send a frame (binary for a Buffer, text for a string) to one client, or to all when sid is null. */
  sendFrame(frame: Buffer | string, sid: string | null): void {
    const targets = sid === null ? [...this.clients.values()] : [this.clients.get(sid)];
    for (const client of targets) if (client) this.sendTo(client, frame);
  }

  /** Whether the client sent `supports_preview_metadata: true` in its handshake. */
  supportsPreviewMetadata(sid: string | null): boolean {
    return sid !== null && this.clients.get(sid)?.flags.supports_preview_metadata === true;
  }

  /** Close every socket and stop accepting. */
  async close(): Promise<void> {
    for (const client of this.clients.values()) client.socket.terminate();
    this.clients.clear();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private sendTo(client: Client, frame: Buffer | string): void {
    if (client.socket.readyState === client.socket.OPEN) client.socket.send(frame);
  }
}

function parseJson(text: string): { type?: unknown; data?: unknown } | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as { type?: unknown; data?: unknown }) : null;
  } catch {
    return null;
  }
}

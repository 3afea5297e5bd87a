/**
 * Connected Studio WebSocket clients: typed broadcast, binary frames, and a heartbeat that
 * drops clients which stopped answering pings (a laptop that went to sleep, a dead Wi-Fi link).
 */
import type { WebSocket } from 'ws';
import type { Logger } from '../logging.js';
import type { WsEventMap, WsMessageType } from '../contracts/ws.contract.js';

/** Binary frames are skipped for a client with more than this queued (a slow phone on Wi-Fi). */
const MAX_BUFFERED_BINARY = 4 * 1024 * 1024;

interface Client {
  socket: WebSocket;
  alive: boolean;
  address: string;
}

export class WsHub {
  private readonly clients = new Set<Client>();
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    private readonly logger: Logger,
    heartbeatMs = 30_000,
  ) {
    this.heartbeat = setInterval(() => this.sweep(), heartbeatMs);
    this.heartbeat.unref();
  }

  get size(): number {
    return this.clients.size;
  }

  /** Open clients from one address (the handshake caps them). */
  countFrom(address: string): number {
    let n = 0;
    for (const client of this.clients) if (client.address === address) n++;
    return n;
  }

  /** Take over a socket whose handshake was authenticated; `greeting` is sent first. */
  add(socket: WebSocket, greeting?: WsEventMap['hello'], address = 'unknown'): void {
    const client: Client = { socket, alive: true, address };
    this.clients.add(client);
    socket.on('pong', () => (client.alive = true));
    socket.on('close', () => this.clients.delete(client));
    socket.on('error', (err) => this.logger.debug('ws client error', err.message));
    // Clients only listen; anything they send is ignored (the heartbeat uses protocol pings).
    socket.on('message', () => {});
    if (greeting) socket.send(JSON.stringify({ type: 'hello', data: greeting }));
  }

  /** Send a typed message to every open client (serialized once). */
  broadcast<K extends WsMessageType>(type: K, data: WsEventMap[K]): void {
    if (this.clients.size === 0) return;
    const frame = JSON.stringify({ type, data });
    for (const { socket } of this.clients) {
      if (socket.readyState === socket.OPEN) socket.send(frame);
    }
  }

  /** Send a binary frame (a preview image) to every client that is keeping up. */
  broadcastBinary(frame: Uint8Array): void {
    for (const { socket } of this.clients) {
      if (socket.readyState === socket.OPEN && socket.bufferedAmount < MAX_BUFFERED_BINARY) socket.send(frame, { binary: true });
    }
  }

  /** Close every client's socket but keep serving (the API key changed: they must sign in again). */
  disconnectAll(code: number, reason: string): void {
    for (const { socket } of this.clients) {
      try {
        socket.close(code, reason);
      } catch {}
    }
  }

  /** Close every client (shutdown) and stop the heartbeat. */
  close(code = 1001, reason = 'Studio is shutting down'): void {
    clearInterval(this.heartbeat);
    for (const { socket } of this.clients) {
      try {
        socket.close(code, reason);
      } catch {}
    }
    setTimeout(() => {
      for (const { socket } of this.clients) socket.terminate();
      this.clients.clear();
    }, 1000).unref();
  }

  private sweep(): void {
    for (const client of this.clients) {
      if (!client.alive) {
        this.logger.debug('dropping a WebSocket client that stopped answering pings');
        client.socket.terminate();
        this.clients.delete(client);
        continue;
      }
      client.alive = false;
      try {
        client.socket.ping();
      } catch {}
    }
  }
}

/**
 * Connected Studio WebSocket clients: typed broadcast, binary frames, and a heartbeat that
 * drops clients which stopped answering pings (a laptop that went to sleep, a dead Wi-Fi link).
 * A socket opened with a session cookie lives only as long as that session: logout (revocation)
 * and expiry close it, so a signed-out browser stops receiving events, progress and previews.
 */
import type { WebSocket } from 'ws';
import type { Logger } from '../logging.js';
import type { SessionPayload } from './session.js';
import type { WsEventMap, WsMessageType } from '../contracts/ws.contract.js';
import { mayTouch, OWNER_ACTOR, type Actor } from './actor.js';

/** Binary frames are skipped for a client with more than this queued (a slow phone on Wi-Fi). */
const MAX_BUFFERED_BINARY = 4 * 1024 * 1024;
/** Close code when the session that opened the socket ended (the client must sign in again). */
export const SESSION_ENDED_CODE = 4001;
/** setTimeout's longest delay; a later deadline is re-checked when it fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Who among the connected people receives a message (everyone when absent). */
export type Audience = (actor: Actor) => boolean;

/** The people who may see a record owned by `ownerId` (its owner, admins and the owner of Studio). */
export function ownerAudience(ownerId: string | null | undefined): Audience {
  return (actor) => mayTouch(actor, ownerId);
}

/** Until when a session is valid (null: no longer); the session signer answers it. */
export type SessionDeadline = (session: SessionPayload) => number | null;

interface Client {
  socket: WebSocket;
  alive: boolean;
  address: string;
  /** The session whose cookie opened the socket (null: opened with the API key). */
  session: SessionPayload | null;
  /** The person the handshake authenticated: messages about others' records never reach them. */
  actor: Actor;
  expiry: NodeJS.Timeout | null;
}

export class WsHub {
  private readonly clients = new Set<Client>();
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    private readonly logger: Logger,
    heartbeatMs = 30_000,
    private readonly sessionDeadline: SessionDeadline = () => null,
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

  /**
   * Take over a socket whose handshake was authenticated; `greeting` is sent first. `session` is
   * the cookie's session when one opened it: the socket closes when that session ends.
   */
  add(socket: WebSocket, greeting?: WsEventMap['hello'], address = 'unknown', session: SessionPayload | null = null, actor: Actor = OWNER_ACTOR): void {
    const client: Client = { socket, alive: true, address, session, actor, expiry: null };
    this.clients.add(client);
    socket.on('pong', () => (client.alive = true));
    socket.on('close', () => this.forget(client));
    socket.on('error', (err) => this.logger.debug('ws client error', err.message));
    // Clients only listen; anything they send is ignored (the heartbeat uses protocol pings).
    socket.on('message', () => {});
    if (greeting) socket.send(JSON.stringify({ type: 'hello', data: greeting }));
    if (session) this.watchSession(client);
  }

  /** Close the sockets a session opened (it was signed out). */
  closeSession(sid: string, reason = 'Signed out: sign in again'): void {
    for (const client of this.clients) if (client.session?.sid === sid) this.endSession(client, reason);
  }

  /**
   * Close at once every socket whose person matches (disabled, changed, or the key that opened it
   * revoked): a client that reconnects is authenticated afresh, or refused.
   */
  closeActors(match: (actor: Actor) => boolean, reason: string): number {
    let closed = 0;
    for (const client of this.clients) {
      if (!match(client.actor)) continue;
      this.endSession(client, reason);
      closed++;
    }
    return closed;
  }

  /** Send a typed message to every open client of the audience (serialized once). */
  broadcast<K extends WsMessageType>(type: K, data: WsEventMap[K], audience?: Audience): void {
    if (this.clients.size === 0) return;
    const text = JSON.stringify({ type, data });
    for (const { socket, actor } of this.clients) {
      if (socket.readyState === socket.OPEN && (!audience || audience(actor))) socket.send(text);
    }
  }

  /**
   * Send a binary frame (a preview image) to every client of the audience that is keeping up: one with more than
   * `MAX_BUFFERED_BINARY` still queued (a slow phone on Wi-Fi) skips it rather than queue it. The
   * payload is `parts` one after the other (a header and an image), joined once, when some client
   * takes it.
   */
  broadcastBinary(audience: Audience | undefined, ...parts: Uint8Array[]): void {
    let payload: Buffer | null = null;
    for (const { socket, actor } of this.clients) {
      if (socket.readyState === socket.OPEN && socket.bufferedAmount < MAX_BUFFERED_BINARY && (!audience || audience(actor))) socket.send((payload ??= Buffer.concat(parts)), { binary: true });
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
      for (const client of this.clients) {
        client.socket.terminate();
        this.forget(client);
      }
    }, 1000).unref();
  }

  /** Close the socket at its session's expiry, unless a renewal moved the expiry meanwhile. */
  private watchSession(client: Client): void {
    const until = this.sessionDeadline(client.session!);
    if (until === null) return this.endSession(client, 'Your session ended: sign in again');
    client.expiry = setTimeout(() => this.watchSession(client), Math.min(MAX_TIMER_MS, Math.max(0, until - Date.now()) + 10));
    client.expiry.unref();
  }

  private endSession(client: Client, reason: string): void {
    this.forget(client);
    try {
      client.socket.close(SESSION_ENDED_CODE, reason);
    } catch {}
    // A client that ignores the close handshake must still stop receiving: cut it after a moment.
    setTimeout(() => client.socket.terminate(), 1000).unref();
  }

  private forget(client: Client): void {
    if (client.expiry) clearTimeout(client.expiry);
    client.expiry = null;
    this.clients.delete(client);
  }

  private sweep(): void {
    for (const client of this.clients) {
      if (!client.alive) {
        this.logger.debug('dropping a WebSocket client that stopped answering pings');
        client.socket.terminate();
        this.forget(client);
        continue;
      }
      client.alive = false;
      try {
        client.socket.ping();
      } catch {}
    }
  }
}

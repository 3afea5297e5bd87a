/**
 * The one long-lived WebSocket to the engine.
 * A fixed clientId for the whole Studio; every connect re-sends the `feature_flags` handshake so
 * previews arrive as type 4 frames with ids; a ping heartbeat catches sockets that went silent
 * without closing; a reconnect only starts after the old socket's `close`, because the engine
 * drops the *new* socket's routing if the old one is cleaned up later. Nothing is replayed after
 * a gap, so `onReconnect` tells the runner to reconcile in-flight jobs through `/history`.
 */
import WebSocket from 'ws';
import type { RawData } from 'ws';
import type { Logger } from '../logging.js';
import { backoffDelay } from '../process/backoff.js';
import { systemClock, type Clock } from '../process/clock.js';
import { decodePreviewFrame, type EngineMessage, type EnginePreview, parseEngineMessage, type PreviewAttribution } from './engine-messages.js';

/** `stopped` both before `start()` and after `stop()`. */
export type EngineSocketStatus = 'connecting' | 'open' | 'reconnecting' | 'stopped';

export interface EngineSocketState {
  status: EngineSocketStatus;
  /** Failed or dropped connections since the last successful open. */
  attempts: number;
  /** The last failure seen; kept after a recovery so users can see what happened. */
  lastError: string | null;
  /** Epoch ms of the last successful open, or null. */
  openedAt: number | null;
  /** Delay before the scheduled reconnect, while `reconnecting`. */
  retryInMs: number | null;
}

export interface EngineSocketOptions {
  /** The engine's HTTP base URL (`http://127.0.0.1:8188`); `ws:` is derived from it. */
  baseUrl: string;
  /** Fixed for the life of the Studio; every prompt must be submitted with the same id. */
  clientId: string;
  logger: Logger;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** The backoff waits (tests hold them and see them cancelled). */
  clock?: Clock;
  heartbeatMs?: number;
  /** How long `stop()` waits for a clean close before terminating. */
  closeTimeoutMs?: number;
  /** Full-size SaveImageWebsocket PNGs can be tens of MB, so the frame limit is raised. */
  maxPayloadBytes?: number;
  /** Sent with the handshake (an agent Studio's `X-API-Key`). */
  headers?: Record<string, string>;
  /**
   * Whether the engine's supervisor or health watch last saw it answer. Given, the socket dials
   * only then, and its owner calls `retryNow()` when the engine comes up: an engine that is still
   * booting (tens of seconds for a real one), crashed or absent gets no dial that can only fail,
   * and the log no warning per backoff step. Absent: the socket dials at once and backs off.
   */
  engineUp?: () => boolean;
}

type Listener<T> = (value: T) => void;

/** The engine's feature handshake; it must be the first frame the client sends. */
const FEATURE_FLAGS_FRAME = JSON.stringify({ type: 'feature_flags', data: { supports_preview_metadata: true } });

/** What `EngineSocketOptions` leaves out. */
const DEFAULTS = {
  backoffBaseMs: 500,
  backoffMaxMs: 10_000,
  clock: systemClock,
  heartbeatMs: 20_000,
  closeTimeoutMs: 2_000,
  maxPayloadBytes: 256 * 1024 * 1024,
};

export class EngineSocket {
  /** Send it with every prompt: the engine routes lifecycle events by it. */
  readonly clientId: string;
  private readonly url: string;
  private readonly opts: EngineSocketOptions & typeof DEFAULTS;

  private ws: WebSocket | null = null;
  private started = false;
  private stopped = false;
  private everOpened = false;
  private awaitingPong = false;
  /** Why the current socket failed, if it did; decides what `lastError` says on close. */
  private attemptError: string | null = null;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  /** Aborts the backoff wait before the next connect (null: none pending). */
  private reconnectWait: AbortController | null = null;
  private current: EngineSocketState = { status: 'stopped', attempts: 0, lastError: null, openedAt: null, retryInMs: null };
  /** Type 1 previews carry no ids: attribute them to what the engine last said was running. */
  private readonly lastSeen: PreviewAttribution = {};

  private readonly messageListeners = new Set<Listener<EngineMessage>>();
  private readonly previewListeners = new Set<Listener<EnginePreview>>();
  private readonly stateListeners = new Set<Listener<EngineSocketState>>();
  private readonly reconnectListeners = new Set<Listener<void>>();

  constructor(opts: EngineSocketOptions) {
    const base = new URL(opts.baseUrl);
    base.protocol = base.protocol === 'https:' ? 'wss:' : 'ws:';
    base.pathname = `${base.pathname.replace(/\/+$/, '')}/ws`;
    base.search = new URLSearchParams({ clientId: opts.clientId }).toString();
    this.url = base.toString();
    this.clientId = opts.clientId;
    this.opts = { ...DEFAULTS, ...opts };
  }

  /** The connection state users see (a copy). */
  get state(): EngineSocketState {
    return { ...this.current };
  }

  /** Open the socket and keep it open until `stop()`. One-shot: calling it again (or after stop) is a no-op. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.connect();
  }

  /** Close the socket for good; resolves once it is closed (terminated after `closeTimeoutMs`). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.clearTimers();
    const ws = this.ws;
    if (ws && ws.readyState !== WebSocket.CLOSED) {
      await new Promise<void>((resolve) => {
        const deadline = setTimeout(() => ws.terminate(), this.opts.closeTimeoutMs);
        ws.once('close', () => {
          clearTimeout(deadline);
          resolve();
        });
        if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
        else ws.close(1000, 'studio stopping');
      });
    }
    this.ws = null;
    this.setState({ status: 'stopped', retryInMs: null });
  }

  /**
   * Skip the backoff wait, or end the wait for the engine (`engineUp`): the engine is known to be
   * up again (its supervisor saw it answer), so a socket waiting seconds to retry would only lose
   * the first events of the next prompt.
   */
  retryNow(): void {
    if (!this.started || this.stopped || !this.reconnectWait) return;
    this.reconnectWait.abort();
    this.connect();
  }

  /** Resolves true once the socket is open (at once if it is), false after `timeoutMs` or on stop. */
  whenOpen(timeoutMs: number): Promise<boolean> {
    if (this.current.status === 'open') return Promise.resolve(true);
    if (this.stopped || !this.started) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (open: boolean) => {
        clearTimeout(timer);
        off();
        resolve(open);
      };
      const timer = setTimeout(() => done(false), timeoutMs);
      const off = this.onStateChange((state) => {
        if (state.status === 'open') done(true);
        else if (state.status === 'stopped') done(false);
      });
    });
  }

  /** Parsed text frames, known types typed (`other` for the rest). Returns an unsubscribe function. */
  onMessage(fn: Listener<EngineMessage>): () => void {
    return subscribe(this.messageListeners, fn);
  }

  /** Decoded preview frames (binary type 1 and 4). */
  onPreview(fn: Listener<EnginePreview>): () => void {
    return subscribe(this.previewListeners, fn);
  }

  /** Every change of `state`. */
  onStateChange(fn: Listener<EngineSocketState>): () => void {
    return subscribe(this.stateListeners, fn);
  }

  /** The socket is open again after a drop: events sent in the gap are lost, reconcile. */
  onReconnect(fn: () => void): () => void {
    return subscribe(this.reconnectListeners, fn);
  }

  private connect(): void {
    this.reconnectWait = null;
    if (this.stopped) return;
    this.attemptError = null;
    this.setState({ status: this.everOpened || this.current.attempts > 0 ? 'reconnecting' : 'connecting', retryInMs: null });
    if (this.opts.engineUp && !this.opts.engineUp()) {
      // No dial while the engine is known not to answer: `retryNow()` dials once it does.
      this.reconnectWait = new AbortController();
      return;
    }
    const ws = new WebSocket(this.url, { maxPayload: this.opts.maxPayloadBytes, perMessageDeflate: false, headers: this.opts.headers });
    this.ws = ws;
    ws.on('open', () => this.handleOpen(ws));
    ws.on('message', (data, isBinary) => this.handleFrame(data, isBinary));
    ws.on('pong', () => {
      this.awaitingPong = false;
    });
    ws.on('error', (err) => {
      if (this.ws !== ws) return;
      this.attemptError = err.message || String(err);
      this.opts.logger.debug(`engine socket error: ${this.attemptError}`);
    });
    ws.on('close', (code, reason) => this.handleClose(ws, code, reason.toString()));
  }

  private handleOpen(ws: WebSocket): void {
    if (this.ws !== ws) return;
    ws.send(FEATURE_FLAGS_FRAME);
    const reconnected = this.everOpened || this.current.attempts > 0;
    this.everOpened = true;
    this.awaitingPong = false;
    this.startHeartbeat(ws);
    this.setState({ status: 'open', attempts: 0, openedAt: Date.now(), retryInMs: null });
    this.opts.logger.info(`engine socket open (${this.url})`);
    if (reconnected) this.emit(this.reconnectListeners, undefined);
  }

  private handleClose(ws: WebSocket, code: number, reason: string): void {
    if (this.ws !== ws) return;
    this.stopHeartbeat();
    this.ws = null;
    if (this.stopped) return;
    this.current.lastError = this.attemptError ?? `closed by the engine (code ${code}${reason ? `, ${reason}` : ''})`;
    const attempts = this.current.attempts + 1;
    const delay = backoffDelay(attempts, { baseMs: this.opts.backoffBaseMs, maxMs: this.opts.backoffMaxMs });
    this.opts.logger.warn(`engine socket closed (code ${code}); reconnecting in ${delay} ms (attempt ${attempts})`);
    // Only now, after the old socket's close, may a socket with the same clientId connect: the
    // engine keys sockets by clientId, so the old socket's late close would unregister the new one.
    const wait = (this.reconnectWait = new AbortController());
    void this.opts.clock.sleep(delay, wait.signal).then(() => {
      if (!wait.signal.aborted) this.connect();
    });
    this.setState({ status: 'reconnecting', attempts, retryInMs: delay });
  }

  private handleFrame(data: RawData, isBinary: boolean): void {
    const buffer = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    if (isBinary) {
      if (this.previewListeners.size === 0) return;
      const preview = decodePreviewFrame(buffer, this.lastSeen);
      if (preview) this.emit(this.previewListeners, preview);
      return;
    }
    const msg = parseEngineMessage(buffer.toString('utf8'));
    if (!msg) return;
    this.track(msg);
    this.emit(this.messageListeners, msg);
  }

  /** Remember the running prompt and node for type 1 previews. */
  private track(msg: EngineMessage): void {
    if (msg.type === 'executing') {
      if (msg.data.node === null) {
        if (!msg.data.prompt_id || msg.data.prompt_id === this.lastSeen.promptId) {
          this.lastSeen.promptId = undefined;
          this.lastSeen.nodeId = undefined;
        }
        return;
      }
      if (msg.data.prompt_id) this.lastSeen.promptId = msg.data.prompt_id;
      this.lastSeen.nodeId = msg.data.node;
    } else if (msg.type === 'progress') {
      if (msg.data.prompt_id) this.lastSeen.promptId = msg.data.prompt_id;
      if (msg.data.node) this.lastSeen.nodeId = msg.data.node;
    }
  }

  private startHeartbeat(ws: WebSocket): void {
    this.stopHeartbeat();
    this.heartbeatTimer = setInterval(() => {
      if (this.awaitingPong) {
        // A zombie: the TCP connection looks open but nothing answers (a suspended laptop, a NAT
        // that dropped the flow), and no close event will ever come.
        this.attemptError = `no pong within ${this.opts.heartbeatMs} ms`;
        this.opts.logger.warn('engine socket missed a heartbeat; dropping it');
        this.stopHeartbeat();
        ws.terminate();
        return;
      }
      this.awaitingPong = true;
      ws.ping();
    }, this.opts.heartbeatMs);
  }

  private stopHeartbeat(): void {
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = null;
    this.awaitingPong = false;
  }

  private clearTimers(): void {
    this.stopHeartbeat();
    this.reconnectWait?.abort();
    this.reconnectWait = null;
  }

  private setState(patch: Partial<EngineSocketState>): void {
    Object.assign(this.current, patch);
    if (this.stateListeners.size > 0) this.emit(this.stateListeners, this.state);
  }

  private emit<T>(listeners: Set<Listener<T>>, value: T): void {
    for (const fn of listeners) {
      try {
        fn(value);
      } catch (err) {
        // A faulty listener must not take the engine socket down with it.
        this.opts.logger.error('engine socket listener failed', err);
      }
    }
  }
}

function subscribe<T>(set: Set<T>, fn: T): () => void {
  set.add(fn);
  return () => {
    set.delete(fn);
  };
}

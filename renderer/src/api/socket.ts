/**
 * The Studio WebSocket: typed `{type, data}` messages, binary preview frames, and a reconnect
 * loop with exponential backoff and a cap. Listeners learn about every (re)open so the stores can
 * refetch what they show (a dropped socket may have missed changes).
 */
import { decodePreviewFrame } from '../../../server/contracts/preview-frame.js';
import type { PreviewMeta, WsEventMap } from './types.js';

export type SocketState = 'connecting' | 'open' | 'reconnecting' | 'stopped';

export interface SocketStatus {
  state: SocketState;
  /** Failed attempts since the last successful open. */
  attempt: number;
  /** Delay before the next attempt, while reconnecting. */
  retryInMs: number | null;
}

/** A live preview as the page shows it: the frame's header and its image as a Blob. */
export interface PreviewImage {
  meta: PreviewMeta;
  image: Blob;
}

type MessageType = keyof WsEventMap;
type Listener<K extends MessageType> = (data: WsEventMap[K]) => void;

/** The minimum of the browser's WebSocket this client uses (tests pass `ws`'s). */
export interface SocketLike {
  binaryType: string;
  readyState: number;
  onopen: ((ev: unknown) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  close(code?: number, reason?: string): void;
}

export interface StudioSocketOptions {
  url: string;
  createSocket?: (url: string) => SocketLike;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** 0..1; the delay is scaled by 0.5 + random/2 so many tabs do not reconnect in step. */
  random?: () => number;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
}

/** Delay before reconnect attempt `attempt` (1-based): doubling from `base`, capped at `max`. */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, random: number): number {
  const raw = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(raw * (0.5 + random / 2));
}

/** A binary frame as a preview image (the shared codec decodes it); null for anything else. */
export function previewFromFrame(buffer: ArrayBuffer): PreviewImage | null {
  const frame = decodePreviewFrame(buffer);
  if (!frame) return null;
  return { meta: frame.meta, image: new Blob([new Uint8Array(frame.image)], { type: frame.meta.image_type || 'image/jpeg' }) };
}

export class StudioSocket {
  private socket: SocketLike | null = null;
  private timer: unknown = null;
  private running = false;
  private opened = false;
  private current: SocketStatus = { state: 'stopped', attempt: 0, retryInMs: null };
  private readonly listeners = new Map<MessageType, Set<(data: never) => void>>();
  private readonly previewListeners = new Set<(frame: PreviewImage) => void>();
  private readonly openListeners = new Set<(reconnected: boolean) => void>();
  private readonly statusListeners = new Set<(status: SocketStatus) => void>();
  private readonly opts: Required<StudioSocketOptions>;

  constructor(options: StudioSocketOptions) {
    this.opts = {
      createSocket: (url) => new WebSocket(url) as unknown as SocketLike,
      baseDelayMs: 500,
      maxDelayMs: 15_000,
      random: Math.random,
      setTimer: (fn, ms) => setTimeout(fn, ms),
      clearTimer: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
      ...options,
    };
  }

  get status(): SocketStatus {
    return this.current;
  }

  /** Connect, and keep reconnecting until `stop()`. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.connect();
  }

  /** Close for good (no reconnect). */
  stop(): void {
    this.running = false;
    if (this.timer !== null) this.opts.clearTimer(this.timer);
    this.timer = null;
    const socket = this.socket;
    this.socket = null;
    socket?.close(1000, 'client stopped');
    this.setStatus({ state: 'stopped', attempt: 0, retryInMs: null });
  }

  /** Reconnect now instead of waiting out the backoff (a "retry now" button, a tab coming back). */
  retryNow(): void {
    if (!this.running || this.current.state !== 'reconnecting') return;
    if (this.timer !== null) this.opts.clearTimer(this.timer);
    this.timer = null;
    this.connect();
  }

  /** Listen to one message type; returns the unsubscribe function. */
  on<K extends MessageType>(type: K, fn: Listener<K>): () => void {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    set.add(fn as (data: never) => void);
    return () => set.delete(fn as (data: never) => void);
  }

  /** Listen to preview frames. */
  onPreview(fn: (frame: PreviewImage) => void): () => void {
    this.previewListeners.add(fn);
    return () => this.previewListeners.delete(fn);
  }

  /** Called on every open; `reconnected` is false for the first one. */
  onOpen(fn: (reconnected: boolean) => void): () => void {
    this.openListeners.add(fn);
    return () => this.openListeners.delete(fn);
  }

  /** Called when the connection state changes. */
  onStatus(fn: (status: SocketStatus) => void): () => void {
    this.statusListeners.add(fn);
    return () => this.statusListeners.delete(fn);
  }

  private connect(): void {
    this.timer = null;
    this.setStatus({ state: this.opened ? 'reconnecting' : 'connecting', attempt: this.current.attempt, retryInMs: null });
    let socket: SocketLike;
    try {
      socket = this.opts.createSocket(this.opts.url);
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    socket.binaryType = 'arraybuffer';
    socket.onopen = () => {
      if (this.socket !== socket) return;
      const reconnected = this.opened;
      this.opened = true;
      this.setStatus({ state: 'open', attempt: 0, retryInMs: null });
      for (const fn of [...this.openListeners]) fn(reconnected);
    };
    socket.onmessage = (event) => {
      if (this.socket === socket) this.dispatch(event.data);
    };
    socket.onerror = () => {};
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (this.running) this.scheduleReconnect();
    };
  }

  private scheduleReconnect(): void {
    const attempt = this.current.attempt + 1;
    const delay = backoffDelay(attempt, this.opts.baseDelayMs, this.opts.maxDelayMs, this.opts.random());
    this.setStatus({ state: 'reconnecting', attempt, retryInMs: delay });
    this.timer = this.opts.setTimer(() => this.connect(), delay);
  }

  private dispatch(raw: unknown): void {
    if (typeof raw === 'string') {
      let msg: { type?: unknown; data?: unknown };
      try {
        msg = JSON.parse(raw) as { type?: unknown; data?: unknown };
      } catch {
        return;
      }
      if (typeof msg.type !== 'string') return;
      const set = this.listeners.get(msg.type as MessageType);
      if (!set) return;
      for (const fn of [...set]) (fn as (data: unknown) => void)(msg.data);
      return;
    }
    if (raw instanceof ArrayBuffer) {
      const frame = previewFromFrame(raw);
      if (frame) for (const fn of [...this.previewListeners]) fn(frame);
    }
  }

  private setStatus(status: SocketStatus): void {
    this.current = status;
    for (const fn of [...this.statusListeners]) fn(status);
  }
}

/** The `/ws` URL of the page's origin. */
export function socketUrl(loc: Pick<Location, 'protocol' | 'host'> = location): string {
  return `${loc.protocol === 'https:' ? 'wss:' : 'ws:'}//${loc.host}/ws`;
}

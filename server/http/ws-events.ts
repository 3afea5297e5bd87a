/**
 * The Studio WebSocket's message map: every text frame is `{type, data}` with `data` typed by
 * `type` here. The renderer imports these types (`import type`) so both ends agree. Binary
 * frames carry preview images (see the runner).
 */
import type { StudioEvent } from '../events/event.schema.js';

/** What clients learn about the engine (mirrors the engine supervisor's state). */
export interface EngineStateMessage {
  mode: 'standin' | 'managed' | 'external';
  status: 'stopped' | 'starting' | 'running' | 'restarting' | 'crashed' | 'stopping' | 'unreachable';
  restarts: number;
  lastError: string | null;
}

export interface WsEventMap {
  /** First frame after the handshake. */
  hello: { version: string; engine: EngineStateMessage; maintenance: boolean };
  /** Every event of the event bus, as it happens. */
  event: StudioEvent;
  /** The engine's supervisor changed state. */
  'engine.state': EngineStateMessage;
}

export type WsMessageType = keyof WsEventMap;

export type WsMessage = { [K in WsMessageType]: { type: K; data: WsEventMap[K] } }[WsMessageType];

/**
 * A Studio WebSocket client for tests: records every text frame (`{type, data}`) and every binary
 * frame, in arrival order, and waits for conditions on them.
 */
import WebSocket from 'ws';

export interface WsFrame {
  type: string;
  data: Record<string, unknown>;
}

export interface StudioWsClient {
  ws: WebSocket;
  /** Text frames in arrival order. */
  frames: WsFrame[];
  /** Binary frames in arrival order. */
  binary: Buffer[];
  /** Text frames of one type. */
  ofType(type: string): WsFrame[];
  close(): Promise<void>;
}

/** Connect to `<url>/ws` with the API key; resolves once the socket is open. */
export function connectStudioWs(url: string, apiKey: string): Promise<StudioWsClient> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/ws`, { headers: { 'X-API-Key': apiKey } });
    const frames: WsFrame[] = [];
    const binary: Buffer[] = [];
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (isBinary) binary.push(Buffer.from(data));
      else frames.push(JSON.parse(data.toString('utf8')) as WsFrame);
    });
    ws.once('error', reject);
    ws.once('open', () =>
      resolve({
        ws,
        frames,
        binary,
        ofType: (type) => frames.filter((f) => f.type === type),
        close: () =>
          new Promise<void>((done) => {
            if (ws.readyState === WebSocket.CLOSED) return done();
            ws.once('close', () => done());
            ws.close();
          }),
      }),
    );
  });
}

/** Decode a Studio binary preview frame: `[u32 BE type][u32 BE n][n bytes JSON meta][image]`. */
export function decodeStudioPreview(frame: Buffer): { kind: number; meta: Record<string, unknown>; image: Buffer } {
  const kind = frame.readUInt32BE(0);
  const length = frame.readUInt32BE(4);
  const meta = JSON.parse(frame.toString('utf8', 8, 8 + length)) as Record<string, unknown>;
  return { kind, meta, image: frame.subarray(8 + length) };
}

/** Poll `check` every 20 ms until it returns a truthy value; throws with `what` after `ms`. */
export async function until<T>(check: () => T | Promise<T>, what = 'condition', ms = 15_000): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > end) throw new Error(`${what}: not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

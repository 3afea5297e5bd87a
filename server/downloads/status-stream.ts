/**
 * The download status stream (`GET /api/admin/models/status`): Server-Sent Events, one
 * `data: {downloads, timestamp}` event per second per client. Each client has its own timer,
 * dropped when the client goes away; shutdown ends every open stream so the HTTP server can
 * close without waiting for them.
 */
import type { Response } from 'express';
import type { DownloadStatusEntry } from '../contracts/downloads.contract.js';

export const STATUS_INTERVAL_MS = 1000;

/** Calls `tick` every `ms` until the returned cancel is called (tests record the period asked for). */
export type Repeat = (tick: () => void, ms: number) => () => void;

const repeat: Repeat = (tick, ms) => {
  const timer = setInterval(tick, ms);
  return () => clearInterval(timer);
};

export class StatusStreams {
  private readonly clients = new Set<{ res: Response; cancel: () => void }>();

  constructor(
    private readonly snapshot: () => Record<string, DownloadStatusEntry>,
    private readonly intervalMs = STATUS_INTERVAL_MS,
    private readonly every: Repeat = repeat,
  ) {}

  /** How many clients are connected. */
  get size(): number {
    return this.clients.size;
  }

  /** Turn `res` into a stream: headers now, a first event at once, then one per interval. */
  open(res: Response): void {
    res.status(200);
    res.set({
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      // The connection ends with the stream: no idle keep-alive socket left to hold up shutdown.
      Connection: 'close',
      // Reverse proxies buffer responses by default, which would turn the stream into one late blob.
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    const send = () => {
      const payload = { downloads: this.snapshot(), timestamp: Date.now() / 1000 };
      res.write(`data: ${JSON.stringify(payload)}\n\n`);
    };
    const client = { res, cancel: this.every(send, this.intervalMs) };
    this.clients.add(client);
    res.on('close', () => {
      client.cancel();
      this.clients.delete(client);
    });
    send();
  }

  /** End every stream (shutdown). */
  closeAll(): void {
    for (const client of this.clients) {
      client.cancel();
      client.res.end();
    }
    this.clients.clear();
  }
}

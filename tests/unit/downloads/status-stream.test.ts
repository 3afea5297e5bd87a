/**
 * The download status stream sends one event at once and then one per STATUS_INTERVAL_MS. The
 * period is checked as the one the stream asks its timer for (a recording `every`), and the ticks
 * are driven by hand: no wall-clock gap is measured.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { STATUS_INTERVAL_MS, StatusStreams, type Repeat } from '../../../server/downloads/status-stream.js';

const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

interface Timer {
  ms: number;
  tick: () => void;
  cancelled: boolean;
}

async function setup(): Promise<{ url: string; streams: StatusStreams; timers: Timer[]; snapshot: { n: number } }> {
  const timers: Timer[] = [];
  const every: Repeat = (tick, ms) => {
    const timer = { ms, tick, cancelled: false };
    timers.push(timer);
    return () => void (timer.cancelled = true);
  };
  const snapshot = { n: 0 };
  const streams = new StatusStreams(() => ({ [`f${snapshot.n}.safetensors`]: { status: 'downloading', bytes_downloaded: snapshot.n, bytes_total: 10, percent: snapshot.n * 10, speed: 0 } }), STATUS_INTERVAL_MS, every);
  const app = express();
  app.get('/status', (_req, res) => streams.open(res));
  const server = http.createServer(app);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/status`, streams, timers, snapshot };
}

/** Reads `data:` events from an open stream as they arrive. */
function reader(body: ReadableStream<Uint8Array>): () => Promise<Record<string, unknown>> {
  const stream = body.getReader();
  let buffered = '';
  return async () => {
    for (;;) {
      const end = buffered.indexOf('\n\n');
      if (end >= 0) {
        const event = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        return JSON.parse(event.replace(/^data: /, '')) as Record<string, unknown>;
      }
      const { value, done } = await stream.read();
      if (done) throw new Error('stream ended');
      buffered += Buffer.from(value).toString('utf8');
    }
  };
}

describe('download status stream', () => {
  it('sends an event at once, then one per second as its timer ticks', async () => {
    const { url, streams, timers, snapshot } = await setup();
    const res = await fetch(url);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const next = reader(res.body!);
    expect(Object.keys((await next()).downloads as object)).toEqual(['f0.safetensors']);
    expect(timers.map((t) => t.ms)).toEqual([STATUS_INTERVAL_MS]);
    expect(STATUS_INTERVAL_MS).toBe(1000);
    for (const n of [1, 2]) {
      snapshot.n = n;
      timers[0]!.tick();
      const event = await next();
      expect(Object.keys(event).sort()).toEqual(['downloads', 'timestamp']);
      expect(Object.keys(event.downloads as object)).toEqual([`f${n}.safetensors`]);
    }
    expect(streams.size).toBe(1);
    streams.closeAll();
    expect(timers[0]!.cancelled).toBe(true);
    expect(streams.size).toBe(0);
  });

  it('cancels the timer of a client that goes away', async () => {
    const { url, streams, timers } = await setup();
    const controller = new AbortController();
    const res = await fetch(url, { signal: controller.signal });
    await reader(res.body!)();
    controller.abort();
    // The server sees the close: wait for it, then its timer is cancelled.
    await expect.poll(() => streams.size).toBe(0);
    expect(timers[0]!.cancelled).toBe(true);
  });
});

import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { backoffDelay, previewFromFrame, StudioSocket, type SocketLike, type SocketStatus } from '../../../renderer/src/api/socket.js';

/** A reconnect scheduler the test fires by hand, recording the delays asked for. */
function manualTimers() {
  const pending: Array<() => void> = [];
  const delays: number[] = [];
  return {
    delays,
    setTimer: (fn: () => void, ms: number) => {
      delays.push(ms);
      pending.push(fn);
      return pending.length;
    },
    clearTimer: () => {},
    fireNext: () => pending.shift()?.(),
  };
}

function previewFrame(meta: object, image: Buffer): Buffer {
  const json = Buffer.from(JSON.stringify(meta));
  const header = Buffer.alloc(8);
  header.writeUInt32BE(1, 0);
  header.writeUInt32BE(json.length, 4);
  return Buffer.concat([header, json, image]);
}

function arrayBuffer(buf: Buffer): ArrayBuffer {
  const copy = new ArrayBuffer(buf.length);
  new Uint8Array(copy).set(buf);
  return copy;
}

async function waitFor(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
}

let server: WebSocketServer | null = null;
let client: StudioSocket | null = null;

afterEach(async () => {
  client?.stop();
  client = null;
  if (server) {
    for (const c of server.clients) c.terminate();
    await new Promise((r) => server!.close(r));
  }
  server = null;
});

async function listen(port = 0): Promise<WebSocketServer> {
  const wss = new WebSocketServer({ port, host: '127.0.0.1' });
  await once(wss, 'listening');
  return wss;
}

describe('backoffDelay', () => {
  it('doubles from the base and stops at the cap', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7].map((a) => backoffDelay(a, 500, 15_000, 1));
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 15_000, 15_000]);
  });
  it('spreads clients with jitter between half and the full delay', () => {
    expect(backoffDelay(3, 500, 15_000, 0)).toBe(1000);
    expect(backoffDelay(3, 500, 15_000, 0.5)).toBe(1500);
  });
});

describe('previewFromFrame', () => {
  it('reads the meta header and the image bytes', async () => {
    const raw = previewFrame({ prompt_id: 'p1', node_id: '3', image_type: 'image/png' }, Buffer.from([1, 2, 3]));
    const frame = previewFromFrame(arrayBuffer(raw));
    expect(frame?.meta.prompt_id).toBe('p1');
    expect(frame?.image.type).toBe('image/png');
    expect([...new Uint8Array(await frame!.image.arrayBuffer())]).toEqual([1, 2, 3]);
  });
  it('rejects other frame types and truncated frames', () => {
    const other = Buffer.alloc(12);
    other.writeUInt32BE(2, 0);
    expect(previewFromFrame(arrayBuffer(other))).toBeNull();
    const cut = previewFrame({ prompt_id: 'p' }, Buffer.alloc(0)).subarray(0, 10);
    expect(previewFromFrame(arrayBuffer(cut))).toBeNull();
  });
});

describe('StudioSocket', () => {
  it('delivers typed messages and preview frames to listeners', async () => {
    server = await listen();
    const port = (server.address() as AddressInfo).port;
    server.on('connection', (ws) => {
      ws.send(JSON.stringify({ type: 'engine.state', data: { mode: 'standin', status: 'running', restarts: 0, lastError: null } }));
      ws.send(previewFrame({ prompt_id: 'job-1', node_id: null, image_type: 'image/jpeg' }, Buffer.from([9])));
    });
    client = new StudioSocket({ url: `ws://127.0.0.1:${port}`, createSocket: (url) => new WebSocket(url) as unknown as SocketLike });
    const states: string[] = [];
    const previews: string[] = [];
    client.on('engine.state', (s) => states.push(s.status));
    client.onPreview((f) => previews.push(f.meta.prompt_id ?? ''));
    client.start();
    await waitFor(() => states.length === 1 && previews.length === 1);
    expect(states).toEqual(['running']);
    expect(previews).toEqual(['job-1']);
  });

  it('reconnects with growing delays while Studio is down, then tells listeners to refetch', async () => {
    server = await listen();
    const port = (server.address() as AddressInfo).port;
    const timers = manualTimers();
    const opens: boolean[] = [];
    const statuses: SocketStatus[] = [];
    client = new StudioSocket({
      url: `ws://127.0.0.1:${port}`,
      createSocket: (url) => new WebSocket(url) as unknown as SocketLike,
      baseDelayMs: 100,
      maxDelayMs: 400,
      random: () => 1,
      setTimer: timers.setTimer,
      clearTimer: timers.clearTimer,
    });
    client.onOpen((reconnected) => opens.push(reconnected));
    client.onStatus((s) => statuses.push(s));
    client.start();
    await waitFor(() => opens.length === 1);
    expect(opens).toEqual([false]);

    // Studio goes away: the socket drops and every attempt fails until it is back.
    for (const c of server.clients) c.terminate();
    await new Promise((r) => server!.close(r));
    server = null;
    await waitFor(() => timers.delays.length === 1);
    for (let attempt = 2; attempt <= 4; attempt++) {
      timers.fireNext();
      await waitFor(() => timers.delays.length === attempt);
    }
    expect(timers.delays).toEqual([100, 200, 400, 400]);
    expect(client.status).toMatchObject({ state: 'reconnecting', attempt: 4, retryInMs: 400 });

    server = await listen(port);
    timers.fireNext();
    await waitFor(() => opens.length === 2);
    expect(opens).toEqual([false, true]);
    expect(client.status).toEqual({ state: 'open', attempt: 0, retryInMs: null });
    expect(statuses.some((s) => s.state === 'reconnecting')).toBe(true);
  });

  it('stops for good on stop()', async () => {
    server = await listen();
    const port = (server.address() as AddressInfo).port;
    const timers = manualTimers();
    client = new StudioSocket({ url: `ws://127.0.0.1:${port}`, createSocket: (url) => new WebSocket(url) as unknown as SocketLike, setTimer: timers.setTimer, clearTimer: timers.clearTimer });
    const opens: boolean[] = [];
    client.onOpen((r) => opens.push(r));
    client.start();
    await waitFor(() => opens.length === 1);
    client.stop();
    await waitFor(() => server!.clients.size === 0);
    expect(timers.delays).toEqual([]);
    expect(client.status.state).toBe('stopped');
  });
});

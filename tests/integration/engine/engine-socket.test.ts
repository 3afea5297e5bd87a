import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import type { WebSocket as ServerSocket } from 'ws';
import { EngineSocket } from '../../../server/engine/engine-socket.js';
import type { EngineSocketState } from '../../../server/engine/engine-socket.js';
import type { EngineMessage, EnginePreview } from '../../../server/engine/engine-messages.js';
import { startStandinEngine } from '../../../server/standin/standin.server.js';
import { silentLogger } from '../../../server/logging.js';
import { freePort } from '../../helpers/ports.js';
import { TestClock } from '../../helpers/test-clock.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

/** A bare WebSocket server standing in for the engine's `/ws`; records what it sees. */
interface FakeWs {
  port: number;
  url: string;
  /** Server-side sockets, in connection order. */
  sockets: ServerSocket[];
  /** The first frame each connection sent. */
  firstFrames: string[];
  requestUrls: string[];
  /** Server-side sockets still open when a new one connected (pitfall 4 wants 0). */
  overlaps: number;
  close(): Promise<void>;
}

async function startFakeWs(opts: { port?: number; autoPong?: boolean; onConnect?: (ws: ServerSocket) => void } = {}): Promise<FakeWs> {
  const server = http.createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ server, path: '/ws', autoPong: opts.autoPong ?? true });
  const fake: FakeWs = {
    port: 0,
    url: '',
    sockets: [],
    firstFrames: [],
    requestUrls: [],
    overlaps: 0,
    async close() {
      for (const ws of wss.clients) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  wss.on('connection', (ws, req) => {
    fake.overlaps += fake.sockets.filter((s) => s.readyState === s.OPEN).length;
    fake.sockets.push(ws);
    fake.requestUrls.push(req.url ?? '');
    ws.once('message', (data) => {
      fake.firstFrames.push(String(data as Buffer));
      opts.onConnect?.(ws);
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  fake.port = (server.address() as AddressInfo).port;
  fake.url = `http://127.0.0.1:${fake.port}`;
  cleanups.push(() => fake.close());
  return fake;
}

function makeSocket(baseUrl: string, extra: Partial<ConstructorParameters<typeof EngineSocket>[0]> = {}): EngineSocket {
  const socket = new EngineSocket({ baseUrl, clientId: 'studio-test-client', logger: silentLogger, backoffBaseMs: 20, backoffMaxMs: 200, ...extra });
  cleanups.push(() => socket.stop());
  return socket;
}

/** Resolves when `predicate` holds for a state the socket reports (or already holds). */
function waitForState(socket: EngineSocket, predicate: (s: EngineSocketState) => boolean): Promise<EngineSocketState> {
  if (predicate(socket.state)) return Promise.resolve(socket.state);
  return new Promise((resolve) => {
    const off = socket.onStateChange((s) => {
      if (predicate(s)) {
        off();
        resolve(s);
      }
    });
  });
}

function waitFor<T>(register: (fn: (value: T) => void) => () => void, predicate: (value: T) => boolean = () => true): Promise<T> {
  return new Promise((resolve) => {
    const off = register((value) => {
      if (predicate(value)) {
        off();
        resolve(value);
      }
    });
  });
}

async function until(predicate: () => boolean): Promise<void> {
  while (!predicate()) await new Promise((resolve) => setTimeout(resolve, 10));
}

function frame(kind: number, second: number, ...parts: Buffer[]): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(kind, 0);
  head.writeUInt32BE(second, 4);
  return Buffer.concat([head, ...parts]);
}

describe('EngineSocket', () => {
  it('connects with the fixed clientId and sends the feature_flags handshake first', async () => {
    const fake = await startFakeWs();
    const socket = makeSocket(fake.url);
    expect(socket.state.status).toBe('stopped');
    socket.start();
    expect(socket.state.status).toBe('connecting');
    await waitForState(socket, (s) => s.status === 'open');
    await until(() => fake.firstFrames.length === 1);
    expect(fake.requestUrls[0]).toBe('/ws?clientId=studio-test-client');
    expect(JSON.parse(fake.firstFrames[0]!)).toEqual({ type: 'feature_flags', data: { supports_preview_metadata: true } });
    await socket.stop();
    expect(socket.state.status).toBe('stopped');
  });

  it('parses text frames once, types known ones, and decodes previews of type 1 and 4', async () => {
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 9, 9]);
    const meta = Buffer.from(JSON.stringify({ node_id: '12', prompt_id: 'p2', display_node_id: '12', image_type: 'image/png' }));
    const fake = await startFakeWs({
      onConnect(ws) {
        ws.send(JSON.stringify({ type: 'status', data: { status: { exec_info: { queue_remaining: 1 } }, sid: 'studio-test-client' } }));
        ws.send('not json');
        ws.send(JSON.stringify({ type: 'crystools.monitor', data: { cpu: 12 } }));
        ws.send(JSON.stringify({ type: 'executing', data: { node: '3', display_node: '3', prompt_id: 'p1' } }));
        ws.send(frame(1, 1, jpeg));
        ws.send(frame(3, 1, Buffer.from('3'), Buffer.from('some text'))); // type 3: not a preview
        ws.send(frame(4, meta.length, meta, png));
        ws.send(JSON.stringify({ type: 'executing', data: { node: null, prompt_id: 'p1' } }));
      },
    });
    const socket = makeSocket(fake.url);
    const messages: EngineMessage[] = [];
    const previews: EnginePreview[] = [];
    socket.onMessage((m) => messages.push(m));
    socket.onPreview((p) => previews.push(p));
    socket.start();
    await until(() => messages.some((m) => m.type === 'executing' && m.data.node === null));

    expect(messages.map((m) => m.type)).toEqual(['status', 'other', 'executing', 'executing']);
    const other = messages[1]!;
    expect(other.type === 'other' && other.engineType).toBe('crystools.monitor');
    expect(previews).toHaveLength(2);
    expect(previews[0]).toMatchObject({ promptId: 'p1', nodeId: '3', imageType: 'image/jpeg' });
    expect(Buffer.compare(previews[0]!.image, jpeg)).toBe(0);
    expect(previews[0]!.raw.length).toBe(8 + jpeg.length);
    expect(previews[1]).toMatchObject({ promptId: 'p2', nodeId: '12', displayNodeId: '12', imageType: 'image/png' });
    expect(Buffer.compare(previews[1]!.image, png)).toBe(0);
  });

  it('keeps delivering when a listener throws', async () => {
    const fake = await startFakeWs({
      onConnect(ws) {
        ws.send(JSON.stringify({ type: 'execution_start', data: { prompt_id: 'a' } }));
        ws.send(JSON.stringify({ type: 'execution_start', data: { prompt_id: 'b' } }));
      },
    });
    const socket = makeSocket(fake.url);
    const seen: string[] = [];
    socket.onMessage(() => {
      throw new Error('listener bug');
    });
    socket.onMessage((m) => {
      if (m.type === 'execution_start') seen.push(m.data.prompt_id);
    });
    socket.start();
    await until(() => seen.length === 2);
    expect(seen).toEqual(['a', 'b']);
    expect(socket.state.status).toBe('open');
  });

  it('backs off while the engine is down, doubling to the cap, and resets after an open', async () => {
    const port = await freePort();
    const socket = makeSocket(`http://127.0.0.1:${port}`, { backoffBaseMs: 20, backoffMaxMs: 80 });
    const delays: number[] = [];
    socket.onStateChange((s) => {
      if (s.status === 'reconnecting' && s.retryInMs !== null) delays.push(s.retryInMs);
    });
    const reconnected = waitFor<void>((fn) => socket.onReconnect(fn));
    socket.start();
    await waitForState(socket, (s) => s.attempts >= 5);
    expect(delays.slice(0, 5)).toEqual([20, 40, 80, 80, 80]);
    expect(socket.state.status).toBe('reconnecting');
    expect(socket.state.lastError).toMatch(/ECONNREFUSED/);

    const fake = await startFakeWs({ port });
    const open = await waitForState(socket, (s) => s.status === 'open');
    expect(open.attempts).toBe(0);
    await reconnected; // the first open after failures is a reconnect: jobs may have been submitted meanwhile

    delays.length = 0;
    fake.sockets[0]!.terminate();
    await waitForState(socket, (s) => s.status === 'open' && fake.sockets.length === 2);
    expect(delays[0]).toBe(20);
  });

  it('with engineUp, dials only while the engine is known to answer, and at once on retryNow()', async () => {
    const fake = await startFakeWs();
    let up = false;
    const socket = makeSocket(fake.url, { engineUp: () => up });
    socket.start();
    // Booting: nothing dialled, no attempt counted, however long it takes.
    await new Promise((r) => setTimeout(r, 150));
    expect(fake.sockets).toHaveLength(0);
    expect(socket.state).toMatchObject({ status: 'connecting', attempts: 0, lastError: null });
    // The supervisor saw it answer.
    up = true;
    socket.retryNow();
    await waitForState(socket, (s) => s.status === 'open');
    expect(fake.sockets).toHaveLength(1);

    // It went down: one dial after the drop's backoff finds it still down (no dial), then waits for it.
    up = false;
    fake.sockets[0]!.terminate();
    await waitForState(socket, (s) => s.status === 'reconnecting' && s.retryInMs === null);
    await new Promise((r) => setTimeout(r, 150));
    expect(fake.sockets).toHaveLength(1);
    up = true;
    socket.retryNow();
    await waitForState(socket, (s) => s.status === 'open' && fake.sockets.length === 2);
    expect(fake.overlaps).toBe(0);
  });

  it('drops a zombie socket that never answers pings and reconnects under the same clientId', async () => {
    const fake = await startFakeWs({ autoPong: false });
    const socket = makeSocket(fake.url, { heartbeatMs: 100 });
    const reconnected = waitFor<void>((fn) => socket.onReconnect(fn));
    socket.start();
    await reconnected;
    expect(socket.state.status).toBe('open');
    expect(socket.state.lastError).toMatch(/no pong/);
    expect(fake.sockets.length).toBeGreaterThanOrEqual(2);
    expect(fake.requestUrls.every((u) => u === '/ws?clientId=studio-test-client')).toBe(true);
    // Each connect re-sends the handshake.
    await until(() => fake.firstFrames.length >= 2);
    expect(fake.firstFrames.every((f) => f.includes('feature_flags'))).toBe(true);
    // The old socket was gone before the new one arrived (pitfall 4).
    expect(fake.overlaps).toBe(0);
  });

  it('keeps a healthy socket across many heartbeats', async () => {
    const fake = await startFakeWs();
    const socket = makeSocket(fake.url, { heartbeatMs: 30 });
    let pings = 0;
    socket.start();
    await waitForState(socket, (s) => s.status === 'open');
    fake.sockets[0]!.on('ping', () => pings++);
    await until(() => pings >= 5);
    expect(fake.sockets).toHaveLength(1);
    expect(socket.state.status).toBe('open');
  });

  it('reconnects after the engine restarts on the same port', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const dirs = { inputDir: path.join(dir, 'input'), outputDir: path.join(dir, 'output') };
    fs.mkdirSync(dirs.inputDir);
    fs.mkdirSync(dirs.outputDir);
    const first = await startStandinEngine({ port: 0, ...dirs, stepMs: 10 });
    const socket = makeSocket(first.url);
    const statuses: string[] = [];
    socket.onStateChange((s) => statuses.push(s.status));
    socket.start();
    await waitForState(socket, (s) => s.status === 'open');

    const reconnected = waitFor<void>((fn) => socket.onReconnect(fn));
    await first.close();
    await waitForState(socket, (s) => s.status === 'reconnecting' && s.attempts >= 2);
    const second = await startStandinEngine({ port: first.port, ...dirs, stepMs: 10 });
    cleanups.push(() => second.close());
    await reconnected;
    expect(socket.state.status).toBe('open');
    expect(statuses).toContain('reconnecting');
    expect(statuses.slice(0, 2)).toEqual(['connecting', 'open']);
    expect(statuses[statuses.length - 1]).toBe('open');
  });

  it('stop() while reconnecting stays stopped', async () => {
    const port = await freePort();
    // Every backoff wait is held by the clock: the one pending when stop() comes must be cancelled.
    const clock = new TestClock(1);
    const socket = makeSocket(`http://127.0.0.1:${port}`, { clock });
    socket.start();
    await waitForState(socket, (s) => s.attempts >= 1);
    expect(clock.heldDelays()).toEqual([20]);
    await socket.stop();
    expect(clock.heldDelays()).toEqual([]);
    expect(socket.state.status).toBe('stopped');
    // A `retryNow` (the engine answers again) does not reconnect a stopped socket either.
    socket.retryNow();
    expect(socket.state.status).toBe('stopped');
  });
});

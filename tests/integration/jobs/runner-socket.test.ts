/**
 * What the runner needs from the engine socket: `whenOpen` (submit only once events can arrive)
 * and `retryNow` (connect as soon as the engine is back instead of sitting out a long backoff).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { EngineSocket } from '../../../server/engine/engine-socket.js';
import { silentLogger } from '../../../server/logging.js';
import { freePort } from '../../helpers/ports.js';
import { until } from '../../helpers/studio-ws.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function startWsServer(port: number): Promise<void> {
  const server = http.createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ server, path: '/ws' });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  expect((server.address() as AddressInfo).port).toBe(port);
  cleanups.push(async () => {
    for (const ws of wss.clients) ws.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
}

function socketFor(port: number): EngineSocket {
  // A backoff far longer than any test: only retryNow can bring the socket up in time.
  const socket = new EngineSocket({ baseUrl: `http://127.0.0.1:${port}`, clientId: 'studio-runner-test', logger: silentLogger, backoffBaseMs: 600_000, backoffMaxMs: 600_000 });
  cleanups.push(() => socket.stop());
  return socket;
}

describe('EngineSocket for the runner', () => {
  it('whenOpen is false before start and after a timeout, true once open', async () => {
    const port = await freePort();
    const socket = socketFor(port);
    expect(await socket.whenOpen(1000)).toBe(false);
    socket.start();
    await until(() => socket.state.status === 'reconnecting', 'the first failure');
    expect(await socket.whenOpen(50)).toBe(false);
    await startWsServer(port);
    const opened = socket.whenOpen(20_000);
    socket.retryNow();
    expect(await opened).toBe(true);
    expect(await socket.whenOpen(0)).toBe(true);
  });

  it('retryNow skips the backoff once the engine answers again', async () => {
    const port = await freePort();
    const socket = socketFor(port);
    socket.start();
    await until(() => socket.state.status === 'reconnecting' && socket.state.retryInMs === 600_000, 'a long backoff');
    await startWsServer(port);
    socket.retryNow();
    await until(() => socket.state.status === 'open', 'the socket open');
    // A no-op while open or after stop.
    socket.retryNow();
    expect(socket.state.status).toBe('open');
    await socket.stop();
    socket.retryNow();
    expect(socket.state.status).toBe('stopped');
  });
});

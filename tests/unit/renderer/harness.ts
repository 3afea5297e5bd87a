/**
 * Stores under test get a real API client talking to a small real HTTP server (routes given by
 * the test) and a real StudioSocket over a fake browser WebSocket the test drives.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPinia, setActivePinia } from 'pinia';
import { createApp, type App } from 'vue';
import { provideClient, type StudioClient } from '../../../renderer/src/api/context.js';
import { Http } from '../../../renderer/src/api/http.js';
import { StudioSocket, type SocketLike } from '../../../renderer/src/api/socket.js';
import { StudioApi } from '../../../renderer/src/api/studio-api.js';

export type Route = (url: URL, body: string) => unknown;  // may return a promise (a slow endpoint)

/** An answer with its own status (a route's plain return value is a 200 JSON body). */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}

/** A stand-in for the browser's WebSocket: the test opens it and pushes frames. */
export class FakeBrowserSocket implements SocketLike {
  binaryType = 'blob';
  readyState = 0;
  onopen: ((ev: unknown) => void) | null = null;
  onclose: ((ev: unknown) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  open(): void {
    this.readyState = 1;
    this.onopen?.({});
  }
  send<T>(type: string, data: T): void {
    this.onmessage?.({ data: JSON.stringify({ type, data }) });
  }
  drop(): void {
    this.readyState = 3;
    this.onclose?.({});
  }
  close(): void {
    this.readyState = 3;
  }
}

export interface Harness {
  app: App;
  client: StudioClient;
  sockets: FakeBrowserSocket[];
  /** The latest socket the client opened. */
  socket(): FakeBrowserSocket;
  /** Fire the pending reconnect timer. */
  reconnect(): void;
  requests: string[];
  close(): Promise<void>;
}

/** Start the server, build the client, install Pinia on an app that provides it. */
export async function harness(routes: Record<string, Route>): Promise<Harness> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      requests.push(`${req.method} ${url.pathname}${url.search}`);
      const key = Object.keys(routes).find((k) => new RegExp(`^${k}$`).test(`${req.method} ${url.pathname}`));
      if (!key) {
        res.writeHead(404, { 'Content-Type': 'application/json' }).end(JSON.stringify({ detail: 'Not found' }));
        return;
      }
      void Promise.resolve(routes[key]!(url, body)).then((answer) => {
        const reply = answer instanceof Reply ? answer : new Reply(200, answer);
        res.writeHead(reply.status, { 'Content-Type': 'application/json' }).end(JSON.stringify(reply.body));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const sockets: FakeBrowserSocket[] = [];
  const timers: Array<() => void> = [];
  const socket = new StudioSocket({
    url: 'ws://unused',
    createSocket: () => {
      const s = new FakeBrowserSocket();
      sockets.push(s);
      return s;
    },
    setTimer: (fn) => timers.push(fn),
    clearTimer: () => {},
  });
  const app = createApp({});
  const client: StudioClient = { api: new StudioApi(new Http({ baseUrl: base, onUnauthorized: () => {} })), socket, desktop: null };
  provideClient(app, client);
  const pinia = createPinia();
  app.use(pinia);
  setActivePinia(pinia);
  socket.start();
  sockets[0]!.open();
  return {
    app,
    client,
    sockets,
    socket: () => sockets[sockets.length - 1]!,
    reconnect: () => timers.shift()?.(),
    requests,
    async close() {
      socket.stop();
      await new Promise((r) => server.close(r));
    },
  };
}

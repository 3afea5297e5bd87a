/**
 * `EngineClient.viewStream` (the stream-through of `/api/engine/view`) against real servers: every
 * way an answer's body can be framed or cut. Raw `net` servers where the test needs to say exactly which bytes the engine sends.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { EngineClient } from '../../../server/engine/engine.client.js';
import { engineRoutes } from '../../../server/engine/engine.routes.js';
import { SharedFolders } from '../../../server/engine/shared-folders.js';
import { errorMiddleware } from '../../../server/http/error-middleware.js';
import { silentLogger } from '../../../server/logging.js';
import type { ViewStream } from '../../../server/engine/engine-protocol.js';
import { freePort } from '../../helpers/ports.js';

const servers: Array<http.Server | net.Server> = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    if ('closeAllConnections' in server) server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

async function listen(server: http.Server | net.Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** An engine that answers each connection with `answer`, given the request's head. */
function rawEngine(answer: (socket: net.Socket, head: string) => void): { url: Promise<string>; heads: string[]; closed: Promise<void>[] } {
  const heads: string[] = [];
  const closed: Promise<void>[] = [];
  const server = net.createServer((socket) => {
    closed.push(new Promise((resolve) => socket.once('close', () => resolve())));
    let text = '';
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      if (text.includes('\r\n\r\n')) return;
      text += chunk.toString('latin1');
      if (!text.includes('\r\n\r\n')) return;
      heads.push(text);
      answer(socket, text);
    });
  });
  return { url: listen(server), heads, closed };
}

/** A sink that keeps a copy of every piece. */
class Sink extends Writable {
  readonly pieces: Buffer[] = [];

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    this.pieces.push(Buffer.from(chunk));
    this.emit('piece');
    setImmediate(done);
  }

  get bytes(): Buffer {
    return Buffer.concat(this.pieces);
  }
}

async function relay(baseUrl: string, options: { headers?: Record<string, string>; range?: string; signal?: AbortSignal; timeoutMs?: number } = {}): Promise<ViewStream | null> {
  const client = new EngineClient({ baseUrl, headers: options.headers, timeoutMs: options.timeoutMs });
  return client.viewStream({ filename: 'clip.mp4', type: 'temp', subfolder: 'a b', headers: options.range ? { range: options.range } : {}, signal: options.signal });
}

describe('viewStream relayed', () => {
  it('relays a Content-Length body byte for byte', async () => {
    const data = randomBytes(5 * 1024 * 1024 + 123);
    const engine = http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'video/mp4', 'Content-Length': data.length, ETag: '"e1"' });
      res.end(data);
    });
    const answer = await relay(await listen(engine));
    expect(answer!.status).toBe(200);
    expect(answer!.headers['content-type']).toBe('video/mp4');
    expect(answer!.headers['content-length']).toBe(String(data.length));
    expect(answer!.headers.etag).toBe('"e1"');
    const sink = new Sink();
    await pipeline(answer!.body, sink);
    expect(sink.bytes.equals(data)).toBe(true);
  });

  it('asks for the view path, with the client\'s key and the browser\'s Range', async () => {
    const engine = rawEngine((socket) => socket.end('HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-2/10\r\nContent-Length: 3\r\n\r\nabc'));
    const baseUrl = `${await engine.url}/api/agent/engine`;
    const answer = await relay(baseUrl, { headers: { 'X-API-Key': 'agent-key' }, range: 'bytes=0-2' });
    expect(answer!.status).toBe(206);
    expect(answer!.headers['content-range']).toBe('bytes 0-2/10');
    const sink = new Sink();
    await pipeline(answer!.body, sink);
    expect(sink.bytes.toString()).toBe('abc');
    const [requestLine, ...lines] = engine.heads[0]!.trimEnd().split('\r\n');
    expect(requestLine).toMatch(/^GET \/api\/agent\/engine\/view\?filename=clip\.mp4&type=temp&subfolder=a\+b HTTP\/1\.[01]$/);
    expect(lines).toEqual(expect.arrayContaining([`Host: ${new URL(baseUrl).host}`, 'X-API-Key: agent-key', 'range: bytes=0-2']));
  });

  it('relays a body the engine ends by closing (no Content-Length), all of it', async () => {
    const data = randomBytes(300_000);
    const engine = rawEngine((socket) => {
      socket.write(Buffer.concat([Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n'), data.subarray(0, 100_000)]));
      setImmediate(() => socket.end(data.subarray(100_000)));
    });
    const answer = await relay(await engine.url);
    expect(answer!.headers['content-length']).toBeUndefined();
    const sink = new Sink();
    await pipeline(answer!.body, sink);
    expect(sink.bytes.equals(data)).toBe(true);
  });

  it('parses a head that arrives a few bytes at a time, and the body bytes that came with its end', async () => {
    const head = 'HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nX-Split: yes\r\nContent-Length: 11\r\n\r\nhello';
    const engine = rawEngine((socket) => {
      let at = 0;
      const next = () => {
        if (at >= head.length) return void setImmediate(() => socket.end(' world'));
        socket.write(head.slice(at, at + 3));
        at += 3;
        setTimeout(next, 2);
      };
      next();
    });
    const answer = await relay(await engine.url);
    expect(answer!.headers['x-split']).toBe('yes');
    const sink = new Sink();
    await pipeline(answer!.body, sink);
    expect(sink.bytes.toString()).toBe('hello world');
  });

  it('relays no more than Content-Length, even when the engine sends more and keeps the connection', async () => {
    const engine = rawEngine((socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n12345EXTRA BYTES'));
    const answer = await relay(await engine.url);
    const sink = new Sink();
    await pipeline(answer!.body, sink);
    expect(sink.bytes.toString()).toBe('12345');
    // Done with the engine: Studio closed the connection it kept open.
    await engine.closed[0];
  });

  it('ends an empty body at once (304, Content-Length 0)', async () => {
    const engine = rawEngine((socket, head) => {
      if (head.includes('if-none-match')) socket.write('HTTP/1.1 304 Not Modified\r\nETag: "e1"\r\n\r\n');
      else socket.write('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n');
    });
    const client = new EngineClient({ baseUrl: await engine.url });
    const notModified = await client.viewStream({ filename: 'a.png', headers: { 'if-none-match': '"e1"' } });
    expect(notModified!.status).toBe(304);
    notModified!.body.destroy();
    const empty = await relay(await engine.url);
    const sink = new Sink();
    await pipeline(empty!.body, sink);
    expect(sink.bytes.length).toBe(0);
    await Promise.all(engine.closed);
  });

  it('fails the transfer, not ends it, when the engine closes before Content-Length', async () => {
    const engine = rawEngine((socket) => socket.end(`HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n${'x'.repeat(400)}`));
    const answer = await relay(await engine.url);
    const sink = new Sink();
    const err = await pipeline(answer!.body, sink).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(Error);
    expect(sink.destroyed).toBe(true);
    expect(sink.writableFinished).toBe(false);
  });

  it('closes the engine\'s connection when the transfer is aborted mid-body', async () => {
    const engine = rawEngine((socket) => socket.write(`HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n${'x'.repeat(1000)}`));
    const abort = new AbortController();
    const answer = await relay(await engine.url, { signal: abort.signal });
    const sink = new Sink();
    const firstPiece = new Promise((resolve) => sink.once('piece', resolve));
    const piped = pipeline(answer!.body, sink).catch((x: unknown) => x);
    await firstPiece;
    abort.abort();
    await engine.closed[0];
    expect(await piped).toBeInstanceOf(Error);
  });

  it('closes the engine\'s connection when the response it writes into goes away', async () => {
    const engine = rawEngine((socket) => socket.write(`HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n${'x'.repeat(1000)}`));
    const answer = await relay(await engine.url);
    const sink = new Sink();
    const piped = pipeline(answer!.body, sink).catch((x: unknown) => x);
    sink.destroy();
    await engine.closed[0];
    expect(await piped).toBeInstanceOf(Error);
  });

  it('gives null when nothing listens, when the engine never answers, and when it hangs up first', async () => {
    expect(await relay(`http://127.0.0.1:${await freePort()}`)).toBeNull();
    const silent = rawEngine(() => {});
    expect(await relay(await silent.url, { timeoutMs: 200 })).toBeNull();
    await silent.closed[0];
    const rude = rawEngine((socket) => socket.destroy());
    expect(await relay(await rude.url)).toBeNull();
    const aborted = new AbortController();
    aborted.abort();
    expect(await relay(await rude.url, { signal: aborted.signal })).toBeNull();
  });
});

describe('viewStream relayed, other framings', () => {
  it('relays a chunked answer decoded', async () => {
    const engine = rawEngine((socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n'));
    const answer = await relay(await engine.url);
    const sink = new Sink();
    await pipeline(answer!.body, sink);
    expect(sink.bytes.toString()).toBe('hello world');
  });

  it('relays the answer that follows a 1xx', async () => {
    const engine = rawEngine((socket) => socket.end('HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'));
    const answer = await relay(await engine.url);
    const sink = new Sink();
    await pipeline(answer!.body, sink);
    expect(sink.bytes.toString()).toBe('ok');
  });
});

/** Studio's `/api/engine/view` route alone (no folder shared), in front of the engine at `engineUrl`. */
async function viewRoute(engineUrl: string): Promise<string> {
  const client = new EngineClient({ baseUrl: engineUrl });
  const shared = new SharedFolders({ engine: client, dirs: { input: '/nonexistent/i', output: '/nonexistent/o', temp: '/nonexistent/t' }, logger: silentLogger });
  const app = express().use(engineRoutes(client, shared)).use(errorMiddleware(silentLogger));
  return listen(http.createServer(app));
}

describe('the /api/engine/view route over the relay', () => {
  it('fails the client\'s download, not ends it short, when the engine dies mid-body', async () => {
    const engine = rawEngine((socket) => socket.end(`HTTP/1.1 200 OK\r\nContent-Type: video/mp4\r\nContent-Length: 100000\r\n\r\n${'x'.repeat(5000)}`));
    const res = await fetch(`${await viewRoute(await engine.url)}/api/engine/view?filename=clip.mp4`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe('100000');
    await expect(res.arrayBuffer()).rejects.toThrow();
  });

  it('closes the engine\'s connection when the browser goes away mid-download', async () => {
    const engine = rawEngine((socket) => socket.write(`HTTP/1.1 200 OK\r\nContent-Length: 100000000\r\n\r\n${'x'.repeat(5000)}`));
    const abort = new AbortController();
    const res = await fetch(`${await viewRoute(await engine.url)}/api/engine/view?filename=clip.mp4`, { signal: abort.signal });
    const reader = res.body!.getReader();
    expect((await reader.read()).value!.length).toBeGreaterThan(0);
    abort.abort();
    await engine.closed[0];
  });

  it('answers the engine\'s 404 and an unreachable engine with a JSON 404', async () => {
    const engine = rawEngine((socket) => socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n'));
    const missing = await fetch(`${await viewRoute(await engine.url)}/api/engine/view?filename=gone.png`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { detail: string }).detail).toContain('gone.png');
    const down = await fetch(`${await viewRoute(`http://127.0.0.1:${await freePort()}`)}/api/engine/view?filename=a.png`);
    expect(down.status).toBe(404);
    expect(((await down.json()) as { detail: string }).detail).toContain('not reachable');
  });
});

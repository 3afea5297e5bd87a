/**
 * Agent mode (`STUDIO_ROLE=agent`): this Studio serves its local engine to another Studio, which
 * adds it to its pool by URL and key. The engine's HTTP routes are relayed under
 * `/api/agent/engine/*` and its WebSocket at `/api/agent/engine/ws`, behind this Studio's own
 * authentication (the main Studio sends the API key as `X-API-Key`), so the engine itself never
 * listens beyond loopback. Uploads stream through; answers (outputs from `/view`) stream back.
 */
import type http from 'node:http';
import { Readable } from 'node:stream';
import express from 'express';
import WebSocket from 'ws';
import type { Logger } from '../../logging.js';
import { USER_FILE_HEADERS } from '../../http/file-response.js';
import { AGENT_ENGINE_PATH } from './remote-engine.js';
import { AGENT_ENGINE_FRAME } from './pool-engine.js';

/** Request headers that go on to the engine (the rest are this hop's: auth, cookies, host). */
const FORWARDED = ['content-type', 'content-length', 'range', 'accept'];
/** Answer headers that come back. */
const RETURNED = ['content-type', 'content-length', 'content-disposition', 'content-range', 'accept-ranges', 'cache-control'];

/** The HTTP relay to the engine at `engineUrl`. */
export function agentProxyRoutes(engineUrl: string, logger: Logger): express.Router {
  const router = express.Router();
  router.all(`${AGENT_ENGINE_PATH}/{*rest}`, async (req, res) => {
    const rest = req.path.slice(AGENT_ENGINE_PATH.length);
    const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
    const headers: Record<string, string> = {};
    for (const name of FORWARDED) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    // JSON bodies were already parsed by Studio's body parser: sent on as they came, re-serialised.
    const json = hasBody && req.is('application/json');
    if (json) delete headers['content-length'];
    try {
      const answer = await fetch(`${engineUrl}${rest}${query}`, {
        method: req.method,
        redirect: 'manual',
        headers,
        body: !hasBody ? undefined : json ? JSON.stringify(req.body ?? {}) : (Readable.toWeb(req) as ReadableStream),
        ...(hasBody && !json ? { duplex: 'half' } : {}),
      } as RequestInit);
      res.status(answer.status);
      // The engine's files are user-made: opened from this origin, an SVG must not run script.
      res.set(USER_FILE_HEADERS);
      for (const name of RETURNED) {
        const value = answer.headers.get(name);
        if (value) res.setHeader(name, value);
      }
      if (!answer.body) return void res.end();
      Readable.fromWeb(answer.body as import('node:stream/web').ReadableStream).pipe(res);
    } catch (err) {
      logger.warn(`agent: the engine did not answer ${req.method} ${rest}`, err);
      res.status(502).json({ detail: `This agent's engine did not answer: ${(err as Error).message}` });
    }
  });
  return router;
}

/** The WebSocket relay: each socket of the main Studio gets one to the engine, with its client id. */
export function agentSocketRelay(engineUrl: string, logger: Logger, enginePid: () => number | null = () => null): (socket: WebSocket, req: http.IncomingMessage) => void {
  return (socket, req) => {
    const clientId = new URL(req.url ?? '/', 'http://agent').searchParams.get('clientId') ?? '';
    const target = new URL(engineUrl);
    target.protocol = 'ws:';
    target.pathname = '/ws';
    target.search = new URLSearchParams({ clientId }).toString();
    const engine = new WebSocket(target, { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
    // Frames the main Studio sends before the engine socket opens (the feature handshake comes first).
    const early: Array<{ data: WebSocket.RawData; binary: boolean }> = [];
    socket.on('message', (data, binary) => {
      if (engine.readyState === WebSocket.OPEN) engine.send(data, { binary });
      else early.push({ data, binary });
    });
    engine.on('open', () => {
      const pid = enginePid();
      if (pid !== null && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: AGENT_ENGINE_FRAME, data: { pid } }));
      for (const frame of early.splice(0)) engine.send(frame.data, { binary: frame.binary });
    });
    engine.on('message', (data, binary) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(data, { binary });
    });
    const closeBoth = () => {
      if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING) socket.close(1011, 'engine socket closed');
      if (engine.readyState === WebSocket.OPEN) engine.close();
      else if (engine.readyState === WebSocket.CONNECTING) engine.terminate();
    };
    engine.on('close', closeBoth);
    engine.on('error', (err) => {
      logger.warn(`agent: engine socket: ${err.message}`);
      closeBoth();
    });
    socket.on('close', closeBoth);
    socket.on('error', () => closeBoth());
  };
}

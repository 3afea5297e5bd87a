/**
 * The agent's edges, each against real HTTP servers on loopback: the relay serves the engine's
 * files with the sandbox headers Studio's own `/api/engine/view` adds (an SVG opened from the
 * agent's origin runs no script), and the main Studio never sends an agent's key along a redirect:
 * not with a model download request, not with an input uploaded at hand-over.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../server/logging.js';
import { agentProxyRoutes } from '../../../server/engine/pool/agent-proxy.routes.js';
import { downloadOnAgent } from '../../../server/engine/pool/agent-downloads.js';
import type { EnginePool } from '../../../server/engine/pool/engine-pool.js';
import { EngineClient } from '../../../server/engine/engine.client.js';

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function listen(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('agent edges', () => {
  it('the relay answers an engine SVG with the sandbox policy and nosniff', async () => {
    const engine = await listen((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'image/svg+xml' });
      res.end('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    });
    const app = express();
    app.use(agentProxyRoutes(engine, silentLogger));
    const agent = await listen((req, res) => void app(req, res));
    const res = await fetch(`${agent}/api/agent/engine/view?filename=x.svg&type=output`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toMatch(/sandbox/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('a model download request redirected elsewhere is refused, and the key never reaches the other host', async () => {
    const seen: Array<string | undefined> = [];
    const elsewhere = await listen((req, res) => {
      seen.push(req.headers['x-api-key'] as string | undefined);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"status":"queued"}');
    });
    const agent = await listen((_req, res) => {
      res.writeHead(307, { Location: `${elsewhere}/steal` }).end();
    });
    const pool = { get: () => ({ name: 'box', status: 'online', agent: { url: agent, key: 'agent-secret-key-123456' } }) } as unknown as EnginePool;
    await expect(downloadOnAgent(pool, 'e-1', 'model.safetensors', () => 'a'.repeat(64))).rejects.toThrow(/redirect/);
    expect(seen).toEqual([]);
  });

  it('an input upload at hand-over does not follow a redirect, so the key stays with the agent', async () => {
    const seen: Array<string | undefined> = [];
    const elsewhere = await listen((req, res) => {
      seen.push(req.headers['x-api-key'] as string | undefined);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"name":"x.png","subfolder":"","type":"input"}');
    });
    const agent = await listen((_req, res) => {
      res.writeHead(307, { Location: `${elsewhere}/upload/image` }).end();
    });
    const client = new EngineClient({ baseUrl: `${agent}/api/agent/engine`, headers: { 'X-API-Key': 'agent-secret-key-123456' } });
    await expect(client.uploadImage(Buffer.from('png bytes'), 'x.png')).rejects.toThrow();
    expect(seen).toEqual([]);
  });
});

/**
 * A small real HTTP server answering like the model hub's REST API (`/api/v1/model-versions/:id`,
 * `/api/v1/models/:id`) and the repository host's model API (`/api/models/:owner/:name`), with
 * their JSON shapes and error forms. Requests are recorded for header assertions.
 */
import { once } from 'node:events';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeHub {
  url: string;
  requests: Array<{ url: string; headers: IncomingHttpHeaders }>;
  /** Model hub version records by id (as the API returns them). */
  versions: Map<string, Record<string, unknown>>;
  /** Model hub model records by id. */
  models: Map<string, Record<string, unknown>>;
  /** Repository records by `owner/name`. */
  repos: Map<string, Record<string, unknown>>;
  /** Repositories that answer 401/403 GatedRepo without/with a token. */
  gated: Set<string>;
  close(): Promise<void>;
}

/** Start a fake hub on a random loopback port. */
export async function startFakeHub(): Promise<FakeHub> {
  const hub: Omit<FakeHub, 'url' | 'close'> = { requests: [], versions: new Map(), models: new Map(), repos: new Map(), gated: new Set() };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    hub.requests.push({ url: url.pathname, headers: { ...req.headers } });
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      res.writeHead(status, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(body));

    let match = /^\/api\/v1\/model-versions\/(\d+)$/.exec(url.pathname);
    if (match) {
      const version = hub.versions.get(match[1]!);
      return version ? json(200, version) : json(404, { error: `No model version with id ${match[1]}` });
    }
    match = /^\/api\/v1\/models\/(\d+)$/.exec(url.pathname);
    if (match) {
      const model = hub.models.get(match[1]!);
      return model ? json(200, model) : json(404, { error: `No model with id ${match[1]}` });
    }
    match = /^\/api\/models\/([^/]+\/[^/]+)$/.exec(url.pathname);
    if (match) {
      const repo = decodeURIComponent(match[1]!);
      if (hub.gated.has(repo)) {
        const status = req.headers.authorization ? 403 : 401;
        const message = `Access to model ${repo} is restricted. You must have access to it and be authenticated to access it. Please log in.`;
        return json(status, { error: message }, { 'X-Error-Code': 'GatedRepo', 'X-Error-Message': message });
      }
      const record = hub.repos.get(repo);
      if (record) return json(200, record);
      return json(401, { error: 'Repository not found' }, { 'X-Error-Code': 'RepoNotFound', 'X-Error-Message': 'Repository not found' });
    }
    json(404, { error: 'Not found' });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    ...hub,
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

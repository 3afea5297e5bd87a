/**
 * A small real HTTP server answering like the model hub's REST API (`/api/v1/model-versions/:id`,
 * `/api/v1/models/:id`, `/api/v1/images` by `imageId` or by `modelId` with cursor paging, the
 * tRPC batch `tag.getById`, media files under `/media/`, the download URL
 * `/api/download/models/:versionId` that answers 307 to a storage host) and the repository
 * host's model API (`/api/models/:owner/:name`), with their JSON shapes and error forms.
 * Requests are recorded for header assertions; `rateLimit` answers the next calls with 429 and
 * `Retry-After`. As strict as the hub: its API answers GET (and HEAD) only, anything else 405; a
 * model hub call with a bearer token that is not one of `apiKeys` is a 401, like a revoked key.
 */
import { once } from 'node:events';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeHub {
  url: string;
  requests: Array<{ url: string; search: string; headers: IncomingHttpHeaders }>;
  /** Image items by id (`/images?imageId=`). */
  images: Map<number, Record<string, unknown>>;
  /** Image items of a model, newest first (`/images?modelId=`, paged by an opaque cursor). */
  modelImages: Map<string, Array<Record<string, unknown>>>;
  /** Tag names by id (tRPC `tag.getById`). */
  tags: Map<number, string>;
  /** Files served at `/media/<name>`. */
  media: Map<string, { body: Buffer; type: string }>;
  /** When set, `/images?modelId=` answers this status with an error body. */
  imagesStatus: number | null;
  /** Most items one `/images` page holds, whatever `limit` asked (the real hub caps at 200). */
  maxPageSize: number;
  /**
   * Where `/api/download/models/:id` redirects (307, like the hub's signed CDN URLs) when
   * `downloads` has no entry for the version; null: 404.
   */
  downloadTo: string | null;
  /** The next `count` API calls answer 429 with this `Retry-After` (null: none). */
  rateLimit: { count: number; retryAfter: string | null };
  /** Model hub version records by id (as the API returns them). */
  versions: Map<string, Record<string, unknown>>;
  /** Model hub model records by id. */
  models: Map<string, Record<string, unknown>>;
  /** Repository records by `owner/name`. */
  repos: Map<string, Record<string, unknown>>;
  /** Repositories that answer 401/403 GatedRepo without/with a token. */
  gated: Set<string>;
  /**
   * Where `/api/download/models/{versionId}[?fileId=]` redirects (307), asked on every request so
   * a presigned URL can be fresh each time; null or a missing version: 404 "Model file not found".
   */
  downloads: Map<string, (fileId: string | null) => string | null>;
  /** The download URL wants `Authorization: Bearer <this>`; without it, the hub's 401. */
  downloadToken: string | null;
  /** API keys the model hub knows; a call carrying any other bearer token answers 401. */
  apiKeys: Set<string>;
  close(): Promise<void>;
}

/** Start a fake hub on a random loopback port. */
export async function startFakeHub(): Promise<FakeHub> {
  const hub: Omit<FakeHub, 'url' | 'close'> = {
    requests: [],
    versions: new Map(),
    models: new Map(),
    repos: new Map(),
    gated: new Set(),
    images: new Map(),
    modelImages: new Map(),
    tags: new Map(),
    media: new Map(),
    rateLimit: { count: 0, retryAfter: null },
    downloadTo: null,
    maxPageSize: 200,
    imagesStatus: null,
    downloads: new Map(),
    downloadToken: null,
    apiKeys: new Set(),
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    hub.requests.push({ url: url.pathname, search: url.search, headers: { ...req.headers } });
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      res.writeHead(status, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(body));

    if (url.pathname.startsWith('/media/')) {
      const file = hub.media.get(decodeURIComponent(url.pathname.slice('/media/'.length)));
      if (!file) return res.writeHead(404, { 'Content-Type': 'text/plain' }).end('no such file');
      return res.writeHead(200, { 'Content-Type': file.type, 'Content-Length': String(file.body.length) }).end(file.body);
    }
    if (url.pathname.startsWith('/api/') && req.method !== 'GET' && req.method !== 'HEAD') {
      return json(405, { error: `Method ${req.method ?? ''} not allowed` }, { Allow: 'GET, HEAD' });
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const modelhubCall = /^\/api\/(v1|trpc|download)\//.test(url.pathname);
    if (modelhubCall && bearer !== undefined && !hub.apiKeys.has(bearer) && bearer !== hub.downloadToken) {
      return json(401, { error: 'Unauthorized', message: 'The API key is invalid or has been revoked' });
    }
    if (url.pathname.startsWith('/api/download/models/')) return download(url, req.headers, res, json);
    if (hub.rateLimit.count > 0) {
      hub.rateLimit.count -= 1;
      const headers: Record<string, string> = hub.rateLimit.retryAfter === null ? {} : { 'Retry-After': hub.rateLimit.retryAfter };
      return json(429, { error: 'Too Many Requests' }, headers);
    }
    if (url.pathname === '/api/v1/images') return images(url, json);
    if (url.pathname.startsWith('/api/trpc/')) return trpc(url, json);

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

  type Json = (status: number, body: unknown) => void;
  function download(url: URL, headers: IncomingHttpHeaders, res: http.ServerResponse, json: Json): void {
    if (hub.downloadToken !== null && headers.authorization !== `Bearer ${hub.downloadToken}`) {
      return json(401, { error: 'Unauthorized', message: 'The creator of this asset requires you to be logged in to download it' });
    }
    const versionId = url.pathname.slice('/api/download/models/'.length);
    const pinned = hub.downloads.get(versionId);
    const fallback = hub.downloadTo === null ? null : `${hub.downloadTo}/files/${versionId}.safetensors?X-Amz-Expires=86400`;
    const location = pinned ? pinned(url.searchParams.get('fileId')) : fallback;
    if (location === null) return json(404, { error: 'Model file not found' });
    res.writeHead(307, { Location: location }).end();
  }

  function images(url: URL, json: Json): void {
    const imageId = url.searchParams.get('imageId');
    const withMeta = url.searchParams.get('withMeta') === 'true';
    const shaped = (item: Record<string, unknown>) => (withMeta ? item : { ...item, meta: undefined });
    if (imageId !== null) {
      const item = hub.images.get(Number(imageId));
      return json(200, { items: item ? [shaped(item)] : [], metadata: {} });
    }
    const modelId = url.searchParams.get('modelId');
    if (modelId === null) return json(400, { error: 'modelId, imageId or postId required' });
    if (hub.imagesStatus !== null) return json(hub.imagesStatus, { error: 'Internal server error' });
    const all = hub.modelImages.get(modelId) ?? [];
    const limit = Math.min(hub.maxPageSize, Number(url.searchParams.get('limit') ?? 50));
    const cursor = url.searchParams.get('cursor');
    // Opaque to clients, like the real ones: here the offset with a prefix.
    const start = cursor ? Number(cursor.replace(/^c/, '')) : 0;
    const items = all.slice(start, start + limit).map(shaped);
    const next = start + limit < all.length ? `c${start + limit}` : null;
    json(200, { items, metadata: next ? { nextCursor: next } : {} });
  }

  function trpc(url: URL, json: Json): void {
    const procedures = url.pathname.slice('/api/trpc/'.length).split(',');
    const input = JSON.parse(url.searchParams.get('input') ?? '{}') as Record<string, { json: { id: number } }>;
    json(
      200,
      procedures.map((procedure, i) => {
        const id = input[String(i)]?.json.id;
        const name = id === undefined ? undefined : hub.tags.get(id);
        if (procedure !== 'tag.getById' || name === undefined) return { error: { json: { message: 'Not found', code: -32004 } } };
        return { result: { data: { json: { id, name, type: 'UserGenerated' } } } };
      }),
    );
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  // The same object the handler reads, so a test may replace `rateLimit` as a whole.
  return Object.assign(hub, {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

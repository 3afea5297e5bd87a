/**
 * A small real HTTP file server for download tests: it serves one file with an ETag and
 * Range/If-Range support, and can misbehave on demand (require a bearer token, redirect to
 * another server, throttle, drop the connection, stall, serve a login page, fail with a status).
 * With `signed` it acts like the object storage a model hub redirects to: only URLs made by
 * `sign()` are served, each for `signatureUses` requests until `expireSignatures()`, and anything
 * else gets the storage's 403 AccessDenied. Every request is recorded so tests can assert on the
 * headers a client sent.
 */
import { once } from 'node:events';
import http, { type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeFileBehaviour {
  content: Buffer;
  /** Strong ETag including quotes (`"v1"`), or null for none. */
  etag: string | null;
  lastModified: string | null;
  contentType: string;
  /** When set, requests without `Authorization: Bearer <token>` get `unauthorizedStatus`. */
  requireToken: string | null;
  unauthorizedStatus: 401 | 403;
  /** `X-Error-Code` sent with the auth failure (the repository host sends `GatedRepo`). */
  errorCode: string | null;
  /** When set, every request is answered with a redirect to `redirectTo + path`. */
  redirectTo: string | null;
  redirectStatus: 301 | 302 | 303 | 307 | 308;
  /** Serve an HTML login page (200 text/html) instead of the file. */
  html: boolean;
  /** Answer the next `statusTimes` requests with this status and a JSON error body. */
  status: number | null;
  statusTimes: number;
  /** Send the body at about this many bytes per second. */
  throttleBytesPerSec: number | null;
  /** Destroy the connection after this many body bytes, for the next `dropTimes` responses. */
  dropAfterBytes: number | null;
  dropTimes: number;
  /** Send headers and this many body bytes, then nothing, for the next `stallTimes` responses. */
  stallAfterBytes: number | null;
  stallTimes: number;
  /** Answer Range requests with the full file (a server without range support). */
  ignoreRange: boolean;
  /** Send bodies with chunked transfer encoding and no Content-Length (the size is unknown up front). */
  chunked: boolean;
  /** A Content-Encoding header sent with the file (the body itself stays as it is). */
  contentEncoding: string | null;
  /** Serve only URLs made by `sign()` (a presigned storage URL); others get 403 AccessDenied. */
  signed: boolean;
  /** Requests one signature serves before it counts as expired. */
  signatureUses: number;
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

export interface FakeFileServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  requests: RecordedRequest[];
  behaviour: FakeFileBehaviour;
  /** Change the behaviour (e.g. new content and ETag) between requests. */
  set(patch: Partial<FakeFileBehaviour>): void;
  /** A fresh presigned URL for `pathname` on this server (see `signed`). */
  sign(pathname: string): string;
  /** Every signature issued so far expires (the 24 h of a real presigned URL went by). */
  expireSignatures(): void;
  close(): Promise<void>;
}

const DEFAULTS: FakeFileBehaviour = {
  content: Buffer.alloc(0),
  etag: '"v1"',
  lastModified: null,
  contentType: 'application/octet-stream',
  requireToken: null,
  unauthorizedStatus: 401,
  errorCode: null,
  redirectTo: null,
  redirectStatus: 302,
  html: false,
  status: null,
  statusTimes: Number.POSITIVE_INFINITY,
  throttleBytesPerSec: null,
  dropAfterBytes: null,
  dropTimes: 1,
  stallAfterBytes: null,
  stallTimes: Number.POSITIVE_INFINITY,
  ignoreRange: false,
  chunked: false,
  contentEncoding: null,
  signed: false,
  signatureUses: Number.POSITIVE_INFINITY,
};

const SIGNATURE_PARAM = 'X-Amz-Signature';

/** Start a fake file server on a random loopback port. */
export async function startFakeFileServer(patch: Partial<FakeFileBehaviour> = {}): Promise<FakeFileServer> {
  const behaviour: FakeFileBehaviour = { ...DEFAULTS, ...patch };
  const requests: RecordedRequest[] = [];
  /** Uses left per issued signature. */
  const signatures = new Map<string, number>();
  let issued = 0;
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method ?? 'GET', url: req.url ?? '/', headers: { ...req.headers } });
    if (behaviour.signed && !spendSignature(signatures, req.url ?? '/')) {
      res.writeHead(403, { 'Content-Type': 'application/xml' });
      res.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>');
      return;
    }
    handle(behaviour, req.url ?? '/', req.headers, res).catch(() => res.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    requests,
    behaviour,
    set: (next) => Object.assign(behaviour, next),
    sign: (pathname) => {
      issued += 1;
      const signature = `sig${issued}`;
      signatures.set(signature, behaviour.signatureUses);
      return `${url}${pathname}?X-Amz-Expires=86400&${SIGNATURE_PARAM}=${signature}`;
    },
    expireSignatures: () => signatures.clear(),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Whether `url` carries a live signature; spends one use of it. */
function spendSignature(signatures: Map<string, number>, url: string): boolean {
  const signature = new URL(url, 'http://fake').searchParams.get(SIGNATURE_PARAM);
  const left = signature === null ? undefined : signatures.get(signature);
  if (signature === null || left === undefined || left <= 0) return false;
  signatures.set(signature, left - 1);
  return true;
}

async function handle(b: FakeFileBehaviour, url: string, headers: IncomingHttpHeaders, res: ServerResponse): Promise<void> {
  if (b.redirectTo) {
    res.writeHead(b.redirectStatus, { Location: `${b.redirectTo}${url}` }).end();
    return;
  }
  if (b.requireToken && headers.authorization !== `Bearer ${b.requireToken}`) {
    const extra: Record<string, string> = b.errorCode ? { 'X-Error-Code': b.errorCode } : {};
    sendJson(res, b.unauthorizedStatus, { error: 'Unauthorized' }, extra);
    return;
  }
  if (b.status !== null && b.statusTimes > 0) {
    b.statusTimes -= 1;
    sendJson(res, b.status, { error: `fake status ${b.status}` });
    return;
  }
  if (b.html) {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><html><body><form action="/login">Sign in to continue</form></body></html>');
    return;
  }

  const size = b.content.length;
  const validators: Record<string, string> = {};
  if (b.etag) validators.ETag = b.etag;
  if (b.lastModified) validators['Last-Modified'] = b.lastModified;
  const range = b.ignoreRange ? null : parseRange(headers.range);
  const ifRange = headers['if-range'];
  const rangeApplies = range !== null && (ifRange === undefined || ifRange === b.etag || ifRange === b.lastModified);

  if (rangeApplies) {
    if (range.start >= size) {
      res.writeHead(416, { 'Content-Range': `bytes */${size}`, ...validators }).end();
      return;
    }
    const start = range.start;
    const end = range.end === null ? size - 1 : Math.min(range.end, size - 1);
    res.writeHead(206, {
      'Content-Type': b.contentType,
      ...bodyHeaders(b, end - start + 1),
      'Content-Range': `bytes ${start}-${end}/${size}`,
      'Accept-Ranges': 'bytes',
      ...validators,
    });
    await sendBody(b, res, b.content.subarray(start, end + 1));
    return;
  }
  res.writeHead(200, {
    'Content-Type': b.contentType,
    ...bodyHeaders(b, size),
    'Accept-Ranges': 'bytes',
    ...validators,
  });
  await sendBody(b, res, b.content);
}

async function sendBody(b: FakeFileBehaviour, res: ServerResponse, body: Buffer): Promise<void> {
  let dropAt: number | null = null;
  if (b.dropAfterBytes !== null && b.dropTimes > 0) {
    b.dropTimes -= 1;
    dropAt = Math.min(b.dropAfterBytes, body.length);
  }
  let stallAt: number | null = null;
  if (b.stallAfterBytes !== null && b.stallTimes > 0) {
    b.stallTimes -= 1;
    stallAt = Math.min(b.stallAfterBytes, body.length);
  }
  const rate = b.throttleBytesPerSec;
  const tickMs = 50;
  const chunkSize = rate ? Math.max(1, Math.floor((rate * tickMs) / 1000)) : 64 * 1024;
  res.flushHeaders();
  let sent = 0;
  while (sent < body.length) {
    if (res.destroyed) return;
    if (dropAt !== null && sent >= dropAt) {
      res.socket?.destroy();
      return;
    }
    // A stalled response simply never writes again; close() tears the socket down.
    if (stallAt !== null && sent >= stallAt) return;
    let end = Math.min(body.length, sent + chunkSize);
    if (dropAt !== null) end = Math.min(end, dropAt);
    if (stallAt !== null) end = Math.min(end, stallAt);
    const chunk = body.subarray(sent, end);
    sent = end;
    // Wait until the chunk is handed to the socket so a drop right after really delivered it.
    await new Promise<void>((resolve) => res.write(chunk, () => resolve()));
    if (rate) await new Promise((resolve) => setTimeout(resolve, tickMs));
  }
  if (dropAt !== null && sent >= dropAt && dropAt < body.length) {
    res.socket?.destroy();
    return;
  }
  if (stallAt !== null && stallAt < body.length) return;
  res.end();
}

function bodyHeaders(b: FakeFileBehaviour, length: number): Record<string, string> {
  const headers: Record<string, string> = b.chunked ? {} : { 'Content-Length': String(length) };
  if (b.contentEncoding) headers['Content-Encoding'] = b.contentEncoding;
  return headers;
}

function sendJson(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...extra }).end(JSON.stringify(body));
}

function parseRange(header: string | undefined): { start: number; end: number | null } | null {
  const match = header ? /^bytes=(\d+)-(\d*)$/.exec(header.trim()) : null;
  if (!match) return null;
  return { start: Number(match[1]), end: match[2] ? Number(match[2]) : null };
}

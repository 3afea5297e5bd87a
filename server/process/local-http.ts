/**
 * One HTTP request to a local listener Studio runs, watches or is (the engine, llama-server, Studio
 * itself for the chat bot), over `node:http`, the answer read into memory (up to a limit). Why not `fetch`: Node builds `fetch` on undici, loaded on
 * first use, and loading it costs ~10 MiB of resident memory and ~15 ms of CPU (measured on a
 * bare server). Studio's start talks only to its engine — health probes, `/queue`, `/object_info` —
 * so with this the idle server never loads undici; the clients of outside services still use
 * `fetch` when they are first used.
 */
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import tls from 'node:tls';

/**
 * Trust for a loopback HTTPS listener that shows its own certificate: Studio's (STUDIO_TLS_CERT,
 * often self-signed, never naming 127.0.0.1) plus the public roots, host name unchecked. Safe only
 * because the address is a loopback socket Studio itself listens on (the chat bot calling Studio).
 */
export interface LoopbackTrust {
  ca: string[];
}

/** The trust for Studio's own certificate, or undefined when Studio serves plain HTTP. */
export function loopbackTrust(certFile: string | null): LoopbackTrust | undefined {
  return certFile ? { ca: [...tls.rootCertificates, fs.readFileSync(certFile, 'utf8')] } : undefined;
}

export interface LocalRequest {
  method?: string;
  headers?: Record<string, string>;
  /** A stream is piped as it comes (give its `content-length` in `headers` when known). */
  body?: string | Buffer | Readable;
  signal?: AbortSignal;
  /** The whole exchange, headers and body, within this many ms. */
  timeoutMs: number;
  /** Read at most this many bytes of the body; a larger one is cut off and reported by size. */
  maxBytes?: number;
  trust?: LoopbackTrust;
}

export interface LocalResponse {
  status: number;
  ok: boolean;
  headers: http.IncomingHttpHeaders;
  /** A response header, lower-case name; `null` when absent. */
  header(name: string): string | null;
  /** The body, or null when it was larger than `maxBytes` (then only `size` is known). */
  body: Buffer | null;
  size: number;
  /** The body as UTF-8 text ('' when cut off). */
  text: string;
}

/** Raised when `timeoutMs` passed before the whole answer arrived (name as `AbortSignal.timeout`'s). */
class LocalTimeoutError extends Error {
  override name = 'TimeoutError';
}

/** Send the request and read the answer. Rejects on a network error, the timeout or the signal. */
export function localRequest(url: string, req: LocalRequest): Promise<LocalResponse> {
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  const limit = req.maxBytes ?? Number.POSITIVE_INFINITY;
  return new Promise((resolve, reject) => {
    const headers = { ...req.headers };
    if (req.body !== undefined && !(req.body instanceof Readable)) headers['content-length'] = String(Buffer.byteLength(req.body));
    const options: https.RequestOptions = { method: req.method ?? 'GET', headers, signal: req.signal };
    if (secure && req.trust) Object.assign(options, { ca: req.trust.ca, checkServerIdentity: () => undefined });
    const request = (secure ? https : http).request(target, options, (res) => {
      const status = res.statusCode ?? 0;
      const header = (name: string) => {
        const v = res.headers[name];
        return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
      };
      const done = (body: Buffer | null, size: number) => {
        clearTimeout(timer);
        resolve({ status, ok: status >= 200 && status < 300, headers: res.headers, header, body, size, text: body?.toString('utf8') ?? '' });
      };
      const declared = Number(res.headers['content-length'] ?? NaN);
      if (declared > limit) {
        res.destroy();
        return done(null, declared);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) {
          res.destroy();
          done(null, size);
        } else chunks.push(chunk);
      });
      res.on('error', fail);
      res.on('end', () => done(Buffer.concat(chunks), size));
    });
    const timer = setTimeout(() => request.destroy(new LocalTimeoutError(`no answer within ${req.timeoutMs} ms`)), req.timeoutMs);
    function fail(err: Error): void {
      clearTimeout(timer);
      reject(err);
    }
    request.on('error', fail);
    if (req.body instanceof Readable) req.body.on('error', (err) => request.destroy(err)).pipe(request);
    else request.end(req.body);
  });
}

/** Why a request failed, in the words the logs and states use: the errno code, or the message. */
export function describeRequestError(err: unknown, timeoutMs: number): string {
  if (!(err instanceof Error)) return String(err);
  if (err.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  if (err.name === 'AbortError') return 'aborted';
  return (err as NodeJS.ErrnoException).code ?? err.message;
}

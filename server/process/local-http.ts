/**
 * One HTTP request to a child Studio runs or watches (the engine, llama-server), over `node:http`,
 * with the whole answer read as text. Why not `fetch`: Node builds `fetch` on undici, loaded on
 * first use, and loading it costs ~10 MiB of resident memory and ~15 ms of CPU (measured on a
 * bare server). Studio's start talks only to its engine — health probes, `/queue`, `/object_info` —
 * so with this the idle server never loads undici; the clients of outside services still use
 * `fetch` when they are first used.
 */
import http from 'node:http';
import https from 'node:https';

export interface LocalRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** The whole exchange, headers and body, within this many ms. */
  timeoutMs: number;
}

export interface LocalResponse {
  status: number;
  ok: boolean;
  /** A response header, lower-case name; `null` when absent. */
  header(name: string): string | null;
  text: string;
}

/** Raised when `timeoutMs` passed before the whole answer arrived (name as `AbortSignal.timeout`'s). */
class LocalTimeoutError extends Error {
  override name = 'TimeoutError';
}

/** Send the request and read the whole answer. Rejects on a network error, the timeout or the signal. */
export function localRequest(url: string, req: LocalRequest): Promise<LocalResponse> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const headers = { ...req.headers };
    if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body));
    const request = send(target, { method: req.method ?? 'GET', headers, signal: req.signal }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', fail);
      res.on('end', () => {
        clearTimeout(timer);
        const status = res.statusCode ?? 0;
        const value = (name: string) => {
          const v = res.headers[name];
          return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
        };
        resolve({ status, ok: status >= 200 && status < 300, header: value, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    const timer = setTimeout(() => request.destroy(new LocalTimeoutError(`no answer within ${req.timeoutMs} ms`)), req.timeoutMs);
    function fail(err: Error): void {
      clearTimeout(timer);
      reject(err);
    }
    request.on('error', fail);
    request.end(req.body);
  });
}

/** Why a request failed, in the words the logs and states use: the errno code, or the message. */
export function describeRequestError(err: unknown, timeoutMs: number): string {
  if (!(err instanceof Error)) return String(err);
  if (err.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  if (err.name === 'AbortError') return 'aborted';
  return (err as NodeJS.ErrnoException).code ?? err.message;
}

/**
 * HTTP(S) to Studio's own listener on loopback. Not `fetch`: when Studio serves HTTPS
 * (STUDIO_TLS_CERT) its certificate is often self-signed and never names 127.0.0.1, so the bot
 * trusts exactly that certificate (plus the public roots, for a CA-issued one) and skips the host
 * name check, which is safe only because the address is Studio's own loopback socket. Bodies
 * are read into memory up to a limit; a larger body is cut off and reported by size.
 */
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';

export interface LocalResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body, or null when it was larger than `maxBytes` (then only `size` is known). */
  body: Buffer | null;
  size: number;
}

export interface LocalRequest {
  method?: string;
  headers: Record<string, string>;
  body?: Buffer;
  signal: AbortSignal;
  maxBytes?: number;
  /** Give up after this long (a hung Studio must not hang a chat forever); 30 s by default. */
  timeoutMs?: number;
}

/** Requests to Studio's own listener. */
export class LocalHttp {
  private readonly ca: string[] | undefined;

  /** `certFile`: Studio's TLS certificate when it serves HTTPS. */
  constructor(certFile: string | null) {
    this.ca = certFile ? [...tls.rootCertificates, fs.readFileSync(certFile, 'utf8')] : undefined;
  }

  /** One request; rejects on network errors and aborts. */
  request(url: string, init: LocalRequest): Promise<LocalResponse> {
    const target = new URL(url);
    const secure = target.protocol === 'https:';
    const options: https.RequestOptions = {
      method: init.method ?? 'GET',
      headers: { ...init.headers, ...(init.body ? { 'Content-Length': String(init.body.length) } : {}) },
      signal: AbortSignal.any([init.signal, AbortSignal.timeout(init.timeoutMs ?? 30_000)]),
      ...(secure ? { ca: this.ca, checkServerIdentity: () => undefined } : {}),
    };
    const limit = init.maxBytes ?? Number.POSITIVE_INFINITY;
    return new Promise((resolve, reject) => {
      const req = (secure ? https : http).request(target, options, (res) => {
        const declared = Number(res.headers['content-length'] ?? NaN);
        const done = (body: Buffer | null, size: number) => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, size });
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
        res.on('end', () => done(Buffer.concat(chunks), size));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(init.body);
    });
  }
}

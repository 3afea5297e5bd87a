/** Raw HTTP for tests that need headers fetch will not send (Host) or a body as-is. */
import http from 'node:http';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request with exactly these headers. */
export function rawRequest(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** The `Set-Cookie` entry for the session cookie, or undefined. */
export function sessionSetCookie(headers: Headers | http.IncomingHttpHeaders): string | undefined {
  const all = headers instanceof Headers ? headers.getSetCookie() : (headers['set-cookie'] ?? []);
  return all.find((c) => c.startsWith('session='));
}

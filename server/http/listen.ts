/**
 * The listening side of Studio's HTTP server: start listening, and the address Studio's own
 * clients (the desktop window, the chat bot) use to reach it.
 */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Resolves once `server` listens on `host:port`; rejects when it cannot (the port is taken). */
export function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** The port `server` is bound to, or `fallback` before it listens. */
export function boundPort(server: http.Server, fallback: number): number {
  return (server.address() as AddressInfo | null)?.port ?? fallback;
}

/** Loopback when the server listens on every interface, else the one address it actually bound. */
export function localUrl(server: http.Server, tls: boolean, fallbackPort: number): string {
  const bound = (server.address() as AddressInfo | null)?.address ?? '127.0.0.1';
  const host = bound === '0.0.0.0' || bound === '::' ? '127.0.0.1' : bound.includes(':') ? `[${bound}]` : bound;
  return `${tls ? 'https' : 'http'}://${host}:${boundPort(server, fallbackPort)}`;
}

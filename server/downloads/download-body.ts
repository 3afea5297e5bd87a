/**
 * Small helpers over a `node:http` response: one header as a string, reading a little of an error
 * body, dropping a body we will not read.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

/** A response header as one string (repeated headers joined), or null. */
export function headerOf(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name.toLowerCase()];
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Drop a response body we will not read; closes the connection. */
export function discardBody(res: IncomingMessage): void {
  res.destroy();
}

/** Up to `limit` bytes of a (small, error) body as text; never fails, closes the connection. */
export function readSomeText(res: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const done = () => {
      if (settled) return;
      settled = true;
      res.off('data', onData);
      res.destroy();
      resolve(Buffer.concat(chunks).subarray(0, limit).toString('utf8'));
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= limit) done();
    };
    res.on('data', onData);
    // A broken error body is not worth failing over; the status says enough.
    res.once('end', done);
    res.once('error', done);
    res.once('close', done);
  });
}

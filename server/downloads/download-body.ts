/**
 * Helpers over a `node:http` response: one header as a string, streaming a body into the part
 * writer, reading a little of an error body, dropping a body we will not read.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { PartWriter } from './download-part-writer.js';

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

/**
 * The hot loop of a download: each chunk is handed to the part writer (written synchronously in
 * batches, see `PartWriter`) and counted by `onChunk`, nothing else; the write's own pace is the backpressure. Resolves at the body's end;
 * on an error (the response's, the write's, or a close before the end) it frees the socket and
 * rejects.
 */
export function pumpBody(res: IncomingMessage, out: PartWriter, onChunk: (bytes: number) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      res.off('data', onData);
      if (error) {
        // Frees the socket when we stop early (write error, abort, stall).
        res.destroy();
        reject(error);
      } else {
        resolve();
      }
    };
    const onData = (chunk: Buffer) => {
      onChunk(chunk.length);
      try {
        out.write(chunk);
      } catch (error) {
        settle(error as Error);
      }
    };
    res.on('data', onData);
    res.on('end', () => settle());
    res.on('error', (error) => settle(error));
    res.on('close', () => settle(new Error('The connection closed before the whole file arrived')));
  });
}
